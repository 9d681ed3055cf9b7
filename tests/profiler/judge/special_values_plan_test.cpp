#include "profiler/judge/plans/special_values_plan.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace kb::judge {
namespace {

std::set<std::pair<size_t, size_t>> as_set(const std::vector<SpecialValuesCase>& cases) {
  std::set<std::pair<size_t, size_t>> s;
  for (const auto& c : cases) s.insert({c.size, c.input});
  return s;
}

TEST(SpecialValuesPlan, OneInputPerCaseAndEveryInputAndSizeCovered) {
  for (size_t sizes = 1; sizes <= 5; ++sizes)
    for (const std::vector<size_t>& inputs : {std::vector<size_t>{0}, {1, 3}, {0, 1, 2}, {2, 4, 5, 7}}) {
      const auto cases = plan_special_values(sizes, inputs);
      EXPECT_EQ(cases.size(), std::max(sizes, inputs.size()));
      std::set<size_t> seen_sizes, seen_inputs;
      for (const auto& c : cases) {
        EXPECT_LT(c.size, sizes);
        seen_sizes.insert(c.size);
        seen_inputs.insert(c.input);
      }
      EXPECT_EQ(seen_sizes.size(), sizes);
      EXPECT_EQ(seen_inputs, std::set<size_t>(inputs.begin(), inputs.end()));
      EXPECT_EQ(as_set(cases).size(), cases.size()) << "a case repeated";
    }
}

TEST(SpecialValuesPlan, ALayernormsThreeInputsAtOneSizeAreThreeCases) {
  const auto cases = plan_special_values(1, {0, 1, 2});
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(describe_special_values_cases(cases, {"rows=4, cols=8"}, {"x", "gamma", "beta", "out"}),
            "x at rows=4, cols=8; gamma at rows=4, cols=8; beta at rows=4, cols=8");
}

TEST(SpecialValuesPlan, NothingWithoutSizesOrInputs) {
  EXPECT_TRUE(plan_special_values(0, {0}).empty());
  EXPECT_TRUE(plan_special_values(3, {}).empty());
}

}  // namespace
}  // namespace kb::judge
