#include "profiler/harness/output_comparator.h"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <cmath>
#include <vector>

namespace kb::harness {
namespace {

using ::testing::HasSubstr;

const Tolerance kTol{1e-4, 1e-5};

TEST(OutputComparator, WithinTolerancePassesAndReportsWorstErrors) {
  std::vector<float> ref = {1.0f, 2.0f, -3.0f, 100.0f};
  std::vector<float> got = {1.00001f, 2.0f, -3.0f, 100.005f};
  const auto c = compare_output(ElemType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.elements, 4);
  EXPECT_NEAR(c.max_abs_error, 0.005, 1e-5);
  EXPECT_NEAR(c.max_rel_error, 5e-5, 1e-6);
  EXPECT_EQ(c.worst.index, 3);
  EXPECT_EQ(describe_output_failure("y", c, kTol), "");
}

TEST(OutputComparator, MismatchTextNamesCountWorstAndFirstElementAndTolerance) {
  std::vector<float> ref(1000, 0.52f), got(1000, 0.52f);
  got[3] = 0.53f;
  got[17] = 2.62f;
  const auto c = compare_output(ElemType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.worst.index, 17);
  EXPECT_EQ(c.first.index, 3);
  const std::string text = describe_output_failure("y", c, kTol);
  EXPECT_THAT(text, HasSubstr("output y: 2 of 1000 elements differ"));
  EXPECT_THAT(text, HasSubstr("worst abs error 2.1 at index 17 (expected 0.52, got 2.62)"));
  EXPECT_THAT(text, HasSubstr("first at index 3"));
  EXPECT_THAT(text, HasSubstr("tolerance rtol 0.0001 atol 1e-05"));
}

TEST(OutputComparator, NanOrInfNeverPassWhereTheReferenceIsFinite) {
  std::vector<double> ref = {1.0, 2.0, 3.0};
  std::vector<double> got = {1.0, NAN, INFINITY};
  const auto c = compare_output(ElemType::float64, ref.data(), got.data(), ref.size(), {1e9, 1e9});
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.non_finite, 2);
  EXPECT_THAT(describe_output_failure("out", c, {1e9, 1e9}), HasSubstr("NaN or Inf where the original is finite"));
}

TEST(OutputComparator, NanAndInfInTheReferenceMustBeMatchedExactly) {
  std::vector<float> ref = {NAN, INFINITY, -INFINITY};
  std::vector<float> same = {NAN, INFINITY, -INFINITY};
  EXPECT_TRUE(compare_output(ElemType::float32, ref.data(), same.data(), 3, kTol).passed());
  std::vector<float> other = {1.0f, -INFINITY, -INFINITY};
  EXPECT_EQ(compare_output(ElemType::float32, ref.data(), other.data(), 3, kTol).mismatches, 2);
}

TEST(OutputComparator, PoisonLeftByTheCandidateIsReportedAsNotWritten) {
  std::vector<float> ref(2048, 1.5f), got(2048, 1.5f);
  fill_poison(ElemType::float32, got.data() + 1024, 1024);
  const auto c = compare_output(ElemType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_EQ(c.not_written, 1024);
  EXPECT_EQ(c.first.index, 1024);
  EXPECT_THAT(describe_output_failure("y", c, kTol),
              HasSubstr("output y was not fully written: 1024 of 2048 elements still hold the poison value"));
}

TEST(OutputComparator, ElementsTheOriginalLeftUnwrittenAreIgnored) {
  std::vector<float> ref(10, 1.0f), got(10, 1.0f);
  fill_poison(ElemType::float32, ref.data() + 8, 2);
  got[8] = 123.0f;  // the candidate may write there or not
  const auto c = compare_output(ElemType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.ignored, 2);
  EXPECT_EQ(c.elements, 8);
}

TEST(OutputComparator, IntegersCompareExactlyEvenBeyondDoublePrecision) {
  std::vector<int64_t> ref = {(int64_t{1} << 60) + 1, 5};
  std::vector<int64_t> got = {(int64_t{1} << 60), 5};  // equal as doubles, different as integers
  const auto c = compare_output(ElemType::int64, ref.data(), got.data(), 2, {0, 0});
  EXPECT_EQ(c.mismatches, 1);
  std::vector<int32_t> a = {1, 2, 3}, b = {1, 2, 3};
  EXPECT_TRUE(compare_output(ElemType::int32, a.data(), b.data(), 3, {0, 0}).passed());
}

TEST(OutputComparator, HalfPrecisionUsesItsOwnTolerance) {
  std::vector<uint16_t> ref = {float_to_half(1.0f), float_to_half(2.0f)};
  std::vector<uint16_t> got = {float_to_half(1.0009765625f), float_to_half(2.0f)};  // one ulp off
  EXPECT_TRUE(compare_output(ElemType::float16, ref.data(), got.data(), 2, {1e-2, 1e-3}).passed());
  EXPECT_FALSE(compare_output(ElemType::float16, ref.data(), got.data(), 2, {1e-4, 1e-5}).passed());
}

TEST(OutputComparator, InputChangesAreCountedAndDescribed) {
  std::vector<float> before = {1, 2, 3, 4}, after = {1, 2, -3, 0};
  const auto change = compare_input(ElemType::float32, before.data(), after.data(), 4);
  EXPECT_EQ(change.changed, 2);
  EXPECT_EQ(change.first_index, 2);
  EXPECT_EQ(describe_input_change("x", "candidate", change),
            "input x was modified by the candidate: 2 elements changed, first at index 2 (was 3, now -3)");
  EXPECT_EQ(compare_input(ElemType::float32, before.data(), before.data(), 4).changed, 0);
}

}  // namespace
}  // namespace kb::harness
