#include "profiler/judge/plans/state_change_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kb::judge {
namespace {

TEST(StateChangePlan, TheFirstElementsNeverChange) {
  EXPECT_EQ(kept_prefix(0), 0u);
  EXPECT_EQ(kept_prefix(1), 1u);
  EXPECT_EQ(kept_prefix(2), 1u);
  EXPECT_EQ(kept_prefix(100), 50u);
  EXPECT_EQ(kept_prefix(1048576), 256u);
  for (uint64_t seed = 0; seed < 200; ++seed)
    for (size_t count : {size_t{3}, size_t{10}, size_t{600}, size_t{1000003}})
      for (size_t p : pick_change_positions(count, kChangedElementsPerInput, seed)) {
        EXPECT_GE(p, kept_prefix(count)) << "count " << count << " seed " << seed;
        EXPECT_LT(p, count);
      }
}

TEST(StateChangePlan, PositionsAreDistinctSortedAndAsManyAsAsked) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const auto p = pick_change_positions(1048576, 5, seed);
    ASSERT_EQ(p.size(), 5u);
    EXPECT_TRUE(std::is_sorted(p.begin(), p.end()));
    EXPECT_EQ(std::set<size_t>(p.begin(), p.end()).size(), 5u);
  }
  // Fewer candidates than asked: all of them, past the kept prefix.
  EXPECT_EQ(pick_change_positions(6, 5, 1), (std::vector<size_t>{3, 4, 5}));
  EXPECT_TRUE(pick_change_positions(1, 5, 1).empty());
  EXPECT_TRUE(pick_change_positions(0, 5, 1).empty());
}

TEST(StateChangePlan, PositionsAreAFunctionOfTheSeedAndSpreadOverTheBuffer) {
  EXPECT_EQ(pick_change_positions(1000003, 5, 42), pick_change_positions(1000003, 5, 42));
  EXPECT_NE(pick_change_positions(1000003, 5, 42), pick_change_positions(1000003, 5, 43));
  // Over many seeds, the positions reach both halves of the changeable span.
  size_t low = 0, high = 0;
  for (uint64_t seed = 0; seed < 100; ++seed)
    for (size_t p : pick_change_positions(1 << 20, 5, seed)) (p < (1 << 19) ? low : high)++;
  EXPECT_GT(low, 150u);
  EXPECT_GT(high, 150u);
}

TEST(StateChangePlan, ASourceIsAnotherElementOfTheBuffer) {
  for (uint64_t seed = 0; seed < 50; ++seed)
    for (int attempt = 0; attempt < 8; ++attempt) {
      const size_t s = pick_source_position(2, 1, seed, attempt);
      EXPECT_EQ(s, 0u);
      const size_t t = pick_source_position(1000, 500, seed, attempt);
      EXPECT_NE(t, 500u);
      EXPECT_LT(t, 1000u);
    }
  // Attempts differ, so a source holding the same value is followed by another.
  std::set<size_t> sources;
  for (int attempt = 0; attempt < 8; ++attempt) sources.insert(pick_source_position(1 << 20, 777, 9, attempt));
  EXPECT_GE(sources.size(), 7u);
}

TEST(StateChangePlan, TheWordsNameTheCallTheBufferAndThePositions) {
  EXPECT_EQ(describe_sequence_call(2, 3, "n=1000"), "call 2 of 3 on the same buffers at size n=1000");
  EXPECT_EQ(describe_changed_elements("input", "x", {183741, 402113}),
            "2 elements of input x changed (at 183741, 402113)");
  EXPECT_EQ(describe_changed_elements("inout", "y", {7}), "1 element of inout y changed (at 7)");
  EXPECT_EQ(describe_changed_elements("input", "x", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
            "10 elements of input x changed (at 1, 2, 3, 4, 5, 6, 7, 8, ...)");
}

}  // namespace
}  // namespace kb::judge
