// The special-values generator (special_values.h), the rule for a non-finite reference
// (non_finite_rule.h) and the question whether the original's outputs on special values are
// defined (special_outputs.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "profiler/judge/inputs/special_values.h"
#include "profiler/judge/outputs/non_finite_rule.h"
#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/outputs/special_outputs.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

std::map<SpecialKind, int64_t> kinds_of(uint64_t seed, uint64_t stream, uint64_t count) {
  std::map<SpecialKind, int64_t> n;
  for (uint64_t i = 0; i < count; ++i) ++n[special_kind(seed, stream, i, count)];
  return n;
}

TEST(SpecialValues, RegionsAreAFewPerBufferWithinBounds) {
  EXPECT_EQ(special_region_shift(10), 6);
  EXPECT_EQ(special_region_shift(1024), 7);  // 1024 / 8 = 128 = 2^7
  EXPECT_EQ(special_region_shift(1 << 20), 12);
  EXPECT_EQ(special_region_shift(uint64_t{1} << 40), 12);
}

TEST(SpecialValues, EveryKindAppearsAndMostElementsStayOrdinary) {
  int64_t total = 0, none = 0;
  std::map<SpecialKind, int64_t> all;
  for (uint64_t seed = 1; seed <= 8; ++seed)
    for (const auto& [k, n] : kinds_of(seed, 3, 1 << 20)) all[k] += n;
  for (const auto& [k, n] : all) total += n;
  none = all[SpecialKind::none];
  for (int k = 1; k < kSpecialKindCount; ++k) EXPECT_GT(all[static_cast<SpecialKind>(k)], 0) << "kind " << k;
  // Half the regions clean, 3/8 sprinkled at 1/32: ~88% of the elements ordinary, 1/8 masked -Inf.
  EXPECT_GT(static_cast<double>(none) / total, 0.8);
  EXPECT_LT(static_cast<double>(none) / total, 0.95);
  EXPECT_GT(all[SpecialKind::neg_inf], total / 20);
}

TEST(SpecialValues, SomeRegionsAreCleanSomeMaskedWhole) {
  const uint64_t count = 1 << 16, region = uint64_t{1} << special_region_shift(count);
  int clean = 0, masked = 0, sprinkled = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed)
    for (uint64_t r = 0; r < count / region; ++r) {
      int64_t specials = 0, inf = 0;
      for (uint64_t i = r * region; i < (r + 1) * region; ++i) {
        const SpecialKind k = special_kind(seed, 0, i, count);
        specials += k != SpecialKind::none;
        inf += k == SpecialKind::neg_inf;
      }
      if (specials == 0) ++clean;
      else if (inf == static_cast<int64_t>(region)) ++masked;
      else ++sprinkled;
    }
  EXPECT_GT(clean, 10);
  EXPECT_GT(masked, 2);
  EXPECT_GT(sprinkled, 10);
}

TEST(SpecialValues, AFunctionOfSeedBufferAndIndex) {
  std::vector<int> a, b, c;
  for (uint64_t i = 0; i < 100000; ++i) {
    a.push_back(static_cast<int>(special_kind(7, 2, i, 100000)));
    b.push_back(static_cast<int>(special_kind(7, 2, i, 100000)));
    c.push_back(static_cast<int>(special_kind(8, 2, i, 100000)));
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(special_value(DType::float32, SpecialKind::denormal, 7, 2, 5),
            special_value(DType::float32, SpecialKind::denormal, 7, 2, 5));
}

template <typename T>
void expect_kind_holds(DType t) {
  for (uint64_t i = 0; i < 64; ++i) {
    const auto v = static_cast<T>(special_value(t, SpecialKind::denormal, 3, 1, i));
    EXPECT_EQ(std::fpclassify(v), FP_SUBNORMAL) << i;
  }
  EXPECT_TRUE(std::isnan(static_cast<T>(special_value(t, SpecialKind::nan, 3, 1, 0))));
  EXPECT_EQ(static_cast<T>(special_value(t, SpecialKind::pos_inf, 3, 1, 0)), std::numeric_limits<T>::infinity());
  EXPECT_EQ(static_cast<T>(special_value(t, SpecialKind::neg_inf, 3, 1, 0)), -std::numeric_limits<T>::infinity());
  const auto z = static_cast<T>(special_value(t, SpecialKind::neg_zero, 3, 1, 0));
  EXPECT_EQ(z, 0);
  EXPECT_TRUE(std::signbit(z));
}

TEST(SpecialValues, ValuesAreWhatTheirKindSaysInEachFloatType) {
  expect_kind_holds<float>(DType::float32);
  expect_kind_holds<double>(DType::float64);
  // Half types: the largest and the smallest subnormal of each.
  EXPECT_EQ(float_type_max(DType::float16), 65504.0);
  EXPECT_EQ(float_type_min_subnormal(DType::float16), std::ldexp(1.0, -24));
  EXPECT_EQ(float_type_min_subnormal(DType::bfloat16), std::ldexp(1.0, -133));
  EXPECT_EQ(float_type_max(DType::bfloat16), std::ldexp(255.0, 120));
  for (uint64_t i = 0; i < 64; ++i) {
    EXPECT_LT(std::fabs(special_value(DType::float16, SpecialKind::denormal, 1, 1, i)), std::ldexp(1.0, -14));
    EXPECT_LT(std::fabs(special_value(DType::bfloat16, SpecialKind::denormal, 1, 1, i)), std::ldexp(1.0, -126));
  }
}

TEST(NonFiniteRule, NonFiniteMustStayNonFinite) {
  const double nan = std::nan(""), inf = HUGE_VAL;
  EXPECT_EQ(non_finite_mismatch(nan, nan), 0);
  EXPECT_EQ(non_finite_mismatch(nan, -std::nan("7")), 0) << "any payload, any sign";
  EXPECT_EQ(non_finite_mismatch(nan, 0.0), 1);
  EXPECT_EQ(non_finite_mismatch(nan, inf), 0) << "0 * Inf in one order is tiny * Inf in another";
  EXPECT_EQ(non_finite_mismatch(inf, inf), 0);
  EXPECT_EQ(non_finite_mismatch(inf, -inf), 0) << "an infinity's sign may follow a rounding";
  EXPECT_EQ(non_finite_mismatch(-inf, -inf), 0);
  EXPECT_EQ(non_finite_mismatch(-inf, 3.4e38), 1);
  EXPECT_EQ(non_finite_mismatch(-inf, nan), 0);
  EXPECT_EQ(non_finite_mismatch(inf, -3.4e38), 1) << "an infinity turned into a number";
  EXPECT_EQ(non_finite_mismatch(1.0, nan), -1) << "a finite reference: the tolerance decides";
  EXPECT_EQ(non_finite_mismatch(-0.0, 0.0), -1);
}

TEST(NonFiniteRule, TheComparatorAppliesItAndZeroesOfEitherSignMatch) {
  const float nan = std::nanf(""), inf = HUGE_VALF;
  const std::vector<float> ref = {nan, inf, -inf, -0.0f, 1.0f, 0.0f};
  std::vector<float> same = {-nan, inf, -inf, 0.0f, 1.0f, -0.0f};
  EXPECT_TRUE(compare_output(DType::float32, ref.data(), same.data(), ref.size(), {1e-5, 1e-5}).passed());
  std::vector<float> zeroed = same;
  zeroed[0] = 0;  // NaN turned into 0
  zeroed[2] = 0;  // -Inf turned into 0
  const auto c = compare_output(DType::float32, ref.data(), zeroed.data(), ref.size(), {1e-5, 1e-5});
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.first.index, 0);
  EXPECT_THAT(describe_output_failure("y", c, {1e-5, 1e-5}), HasSubstr("expected NaN, got 0"));
}

TEST(SpecialOutputs, DefinedWhenTheOriginalRepeatsItselfAndKeepsFiniteValues) {
  const float nan = std::nanf("");
  const std::vector<float> first = {nan, 1.0f, HUGE_VALF, 2.0f};
  const std::vector<float> second = {-nan, 1.0f + 1e-7f, HUGE_VALF, 2.0f};  // atomics' rounding, a NaN's sign
  const auto o = original_outputs_defined(DType::float32, "y", first.data(), second.data(), 4, {1e-5, 1e-5});
  EXPECT_TRUE(o.defined) << o.why;
  EXPECT_EQ(o.nan, 1);
  EXPECT_EQ(o.inf, 1);
  EXPECT_EQ(o.finite, 2);
}

TEST(SpecialOutputs, NotDefinedWhenTheOriginalDisagreesWithItself) {
  const float nan = std::nanf("");
  const std::vector<float> first = {nan, 1.0f, 2.0f};
  const std::vector<float> second = {0.0f, 1.0f, 2.0f};  // a NaN one time, a zero the next (a race)
  const auto o = original_outputs_defined(DType::float32, "y", first.data(), second.data(), 3, {1e-5, 1e-5});
  EXPECT_FALSE(o.defined);
  EXPECT_THAT(o.why, HasSubstr("output y differs between two calls on the same inputs"));
  EXPECT_THAT(o.why, HasSubstr("first at index 0: NaN then 0"));
}

TEST(SpecialOutputs, AnErrorScaleWidensTheSelfAgreementAsInTheTrials) {
  // A row sum that cancels: the atomics' order moves it by far more than rtol * |sum|, but not
  // more than rtol * (the sum of |x|), the error_scale = "abs_inputs" rule.
  const std::vector<float> first = {1e-3f}, second = {1.2e-3f}, scale = {1000.0f};
  EXPECT_FALSE(original_outputs_defined(DType::float32, "out", first.data(), second.data(), 1, {1e-5, 0}).defined);
  EXPECT_TRUE(
      original_outputs_defined(DType::float32, "out", first.data(), second.data(), 1, {1e-5, 0}, scale.data()).defined);
}

TEST(SpecialOutputs, NotDefinedWhenAnOutputHoldsNoFiniteValue) {
  const float nan = std::nanf("");
  const std::vector<float> all_nan = {nan, nan, -HUGE_VALF};
  const auto o = original_outputs_defined(DType::float32, "out", all_nan.data(), all_nan.data(), 3, {1e-5, 1e-5});
  EXPECT_FALSE(o.defined);
  EXPECT_EQ(o.why, "the original's output out holds no finite value (2 NaN, 1 Inf)");
  // Integer outputs are always finite: defined when they repeat.
  const std::vector<int> ids = {1, 2, 3};
  EXPECT_TRUE(original_outputs_defined(DType::int32, "ids", ids.data(), ids.data(), 3, {0, 0}).defined);
}

}  // namespace
}  // namespace kb::judge
