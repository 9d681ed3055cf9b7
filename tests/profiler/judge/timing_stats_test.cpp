#include "profiler/judge/timing/timing_stats.h"

#include <gtest/gtest.h>

namespace kb::judge {
namespace {

TEST(TimingStats, MedianAndQuartilesInterpolateLinearly) {
  const auto s = summarize({4, 1, 3, 2});  // sorted 1 2 3 4
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_EQ(s.count, 4);
}

TEST(TimingStats, NoiseIsSampleStdevOverMean) {
  const auto s = summarize({9, 10, 11});
  EXPECT_DOUBLE_EQ(s.stdev, 1.0);
  EXPECT_DOUBLE_EQ(s.noise, 0.1);
  EXPECT_DOUBLE_EQ(relative_stdev({9, 10, 11}), 0.1);
}

TEST(TimingStats, DegenerateInputs) {
  EXPECT_EQ(summarize({}).count, 0);
  EXPECT_DOUBLE_EQ(summarize({}).median, 0);
  const auto one = summarize({5});
  EXPECT_DOUBLE_EQ(one.median, 5);
  EXPECT_DOUBLE_EQ(one.noise, 0);
  EXPECT_DOUBLE_EQ(quantile_sorted({1, 2, 3}, 1.5), 3);  // clamped
}

// The two kernels of an honest call, traced: their launches ~400 us apart (seen on an H100), the
// GPU busy 9 us of it; overlapping activities count once, empty ones not at all.
TEST(UnionLength, IdleGapsAndOverlapsDoNotCount) {
  EXPECT_EQ(union_length({{1000, 9000}, {409000, 410000}}), 9000u);
  EXPECT_EQ(union_length({{0, 100}, {50, 150}, {150, 200}, {300, 300}}), 200u);
  EXPECT_EQ(union_length({{500, 600}, {0, 1000}}), 1000u);
  EXPECT_EQ(union_length({}), 0u);
}

}  // namespace
}  // namespace kb::judge
