#include "profiler/judge/outputs/output_comparator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "profiler/judge/inputs/input_generator.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

const Tolerance kTol{1e-4, 1e-5};

TEST(OutputComparator, WithinTolerancePassesAndReportsWorstErrors) {
  std::vector<float> ref = {1.0f, 2.0f, -3.0f, 100.0f};
  std::vector<float> got = {1.00001f, 2.0f, -3.0f, 100.005f};
  const auto c = compare_output(DType::float32, ref.data(), got.data(), ref.size(), kTol);
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
  const auto c = compare_output(DType::float32, ref.data(), got.data(), ref.size(), kTol);
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
  const auto c = compare_output(DType::float64, ref.data(), got.data(), ref.size(), {1e9, 1e9});
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.non_finite, 2);
  EXPECT_THAT(describe_output_failure("out", c, {1e9, 1e9}), HasSubstr("NaN or Inf where the original is finite"));
}

TEST(OutputComparator, NanAndInfInTheReferenceMustBeMatchedWhereTheyAre) {
  std::vector<float> ref = {NAN, INFINITY, -INFINITY};
  std::vector<float> same = {NAN, INFINITY, -INFINITY};
  EXPECT_TRUE(compare_output(DType::float32, ref.data(), same.data(), 3, kTol).passed());
  // A number for the NaN: a mismatch. NaN for an infinity and an infinity of the other sign
  // match (which of them an honest kernel gives may follow a rounding near zero: non_finite_rule.h).
  std::vector<float> other = {1.0f, NAN, INFINITY};
  EXPECT_EQ(compare_output(DType::float32, ref.data(), other.data(), 3, kTol).mismatches, 1);
  std::vector<float> finite = {NAN, 3.4e38f, -INFINITY};
  EXPECT_EQ(compare_output(DType::float32, ref.data(), finite.data(), 3, kTol).mismatches, 1);
}

TEST(OutputComparator, PoisonLeftByTheCandidateIsReportedAsNotWritten) {
  std::vector<float> ref(2048, 1.5f), got(2048, 1.5f);
  fill_poison(DType::float32, got.data() + 1024, 1024);
  const auto c = compare_output(DType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_EQ(c.not_written, 1024);
  EXPECT_EQ(c.first.index, 1024);
  EXPECT_THAT(describe_output_failure("y", c, kTol),
              HasSubstr("output y was not fully written: 1024 of 2048 elements still hold the poison value"));
}

TEST(OutputComparator, ElementsTheOriginalLeftUnwrittenAreIgnored) {
  std::vector<float> ref(10, 1.0f), got(10, 1.0f);
  fill_poison(DType::float32, ref.data() + 8, 2);
  got[8] = 123.0f;  // the candidate may write there or not
  const auto c = compare_output(DType::float32, ref.data(), got.data(), ref.size(), kTol);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.ignored, 2);
  EXPECT_EQ(c.elements, 8);
}

TEST(OutputComparator, IntegersCompareExactlyEvenBeyondDoublePrecision) {
  std::vector<int64_t> ref = {(int64_t{1} << 60) + 1, 5};
  std::vector<int64_t> got = {(int64_t{1} << 60), 5};  // equal as doubles, different as integers
  const auto c = compare_output(DType::int64, ref.data(), got.data(), 2, {0, 0});
  EXPECT_EQ(c.mismatches, 1);
  std::vector<int32_t> a = {1, 2, 3}, b = {1, 2, 3};
  EXPECT_TRUE(compare_output(DType::int32, a.data(), b.data(), 3, {0, 0}).passed());
}

TEST(OutputComparator, HalfPrecisionUsesItsOwnTolerance) {
  std::vector<uint16_t> ref = {float_to_half(1.0f), float_to_half(2.0f)};
  std::vector<uint16_t> got = {float_to_half(1.0009765625f), float_to_half(2.0f)};  // one ulp off
  EXPECT_TRUE(compare_output(DType::float16, ref.data(), got.data(), 2, {1e-2, 1e-3}).passed());
  EXPECT_FALSE(compare_output(DType::float16, ref.data(), got.data(), 2, {1e-4, 1e-5}).passed());
}

TEST(OutputComparator, InputChangesAreCountedAndDescribed) {
  std::vector<float> before = {1, 2, 3, 4}, after = {1, 2, -3, 0};
  const auto change = compare_input(DType::float32, before.data(), after.data(), 4);
  EXPECT_EQ(change.changed, 2);
  EXPECT_EQ(change.first_index, 2);
  EXPECT_EQ(describe_input_change("x", "candidate", change),
            "input x was modified by the candidate: 2 elements changed, first at index 2 (was 3, now -3)");
  EXPECT_EQ(compare_input(DType::float32, before.data(), before.data(), 4).changed, 0);
}

TEST(OutputComparator, ErrorScaleNamesParse) {
  EXPECT_EQ(parse_error_scale(""), ErrorScale::plain);
  EXPECT_EQ(parse_error_scale("plain"), ErrorScale::plain);
  EXPECT_EQ(parse_error_scale("abs_inputs"), ErrorScale::abs_inputs);
  EXPECT_FALSE(parse_error_scale("abs").has_value());
  EXPECT_STREQ(to_string(ErrorScale::abs_inputs), "abs_inputs");
}

TEST(OutputComparator, AScaleWidensTheRelativeTermToMaxOfReferenceAndScale) {
  // A sum of 1000 and -999.9: the result is small, the rounding of its terms is not.
  std::vector<float> ref = {0.1f, 5.0f}, got = {0.1005f, 5.0f}, scale = {2000.0f, 1.0f};
  const Tolerance tol{1e-6, 0};
  EXPECT_FALSE(compare_output(DType::float32, ref.data(), got.data(), 2, tol).passed());
  const auto c = compare_output(DType::float32, ref.data(), got.data(), 2, tol, scale.data());
  EXPECT_TRUE(c.passed()) << describe_output_failure("out", c, tol);
  EXPECT_TRUE(c.scaled);
  // |r| still counts where it is the larger: 5.0 against a scale of 1.
  got[1] = 5.000004f;
  EXPECT_TRUE(compare_output(DType::float32, ref.data(), got.data(), 2, tol, scale.data()).passed());
  got[1] = 5.0001f;
  const auto bad = compare_output(DType::float32, ref.data(), got.data(), 2, tol, scale.data());
  EXPECT_EQ(bad.mismatches, 1);
  EXPECT_EQ(bad.worst.index, 1);
  EXPECT_EQ(bad.worst.scale, 1.0);
  const std::string text = describe_output_failure("out", bad, tol);
  EXPECT_THAT(text, HasSubstr("(expected 5, got 5.0001, scale 1)"));
  EXPECT_THAT(text, HasSubstr("relative to max(|expected|, the original's output on |inputs|)"));
  // A negative scale counts by its magnitude.
  scale[0] = -2000.0f;
  got[1] = 5.0f;
  EXPECT_TRUE(compare_output(DType::float32, ref.data(), got.data(), 2, tol, scale.data()).passed());
}

TEST(OutputComparator, AScaleThatIsNotFiniteFallsBackToThePlainRule) {
  std::vector<float> ref = {0.1f, 0.1f, 0.1f}, got = {0.1005f, 0.1005f, 0.1005f};
  std::vector<float> scale = {INFINITY, NAN, 0};
  fill_poison(DType::float32, scale.data() + 2, 1);
  const auto c = compare_output(DType::float32, ref.data(), got.data(), 3, {1e-6, 0}, scale.data());
  EXPECT_EQ(c.mismatches, 3) << "an Inf scale must not accept everything";
  EXPECT_EQ(c.scale_not_finite, 3);
}

TEST(OutputComparator, AScaleNeverExcusesNanPoisonOrAWrongInf) {
  std::vector<float> ref = {1.0f, 2.0f, INFINITY}, got = {NAN, 2.0f, 1e30f}, scale = {1e30f, 1e30f, 1e30f};
  fill_poison(DType::float32, got.data() + 1, 1);
  const auto c = compare_output(DType::float32, ref.data(), got.data(), 3, {1, 1}, scale.data());
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_EQ(c.not_written, 1);
  EXPECT_EQ(c.non_finite, 1);
}

TEST(OutputComparator, AbsInPlaceClearsTheSignOfFloatsAndLeavesIntegersAlone) {
  std::vector<double> d = {-1.5, 2.0, -0.0, -INFINITY};
  abs_in_place(DType::float64, d.data(), d.size());
  EXPECT_EQ(d, (std::vector<double>{1.5, 2.0, 0.0, INFINITY}));
  EXPECT_FALSE(std::signbit(d[2]));
  std::vector<float> f = {-3.25f, 4.0f, -NAN};
  abs_in_place(DType::float32, f.data(), f.size());
  EXPECT_EQ(f[0], 3.25f);
  EXPECT_EQ(f[1], 4.0f);
  EXPECT_TRUE(std::isnan(f[2]));
  EXPECT_FALSE(std::signbit(f[2]));
  for (DType t : {DType::float16, DType::bfloat16}) {
    std::vector<uint16_t> h(3);
    store_double(t, h.data(), 0, -2.5);
    store_double(t, h.data(), 1, 7.0);
    store_double(t, h.data(), 2, -1024.0);
    abs_in_place(t, h.data(), 3);
    EXPECT_EQ(load_double(t, h.data(), 0), 2.5) << to_string(t);
    EXPECT_EQ(load_double(t, h.data(), 1), 7.0) << to_string(t);
    EXPECT_EQ(load_double(t, h.data(), 2), 1024.0) << to_string(t);
  }
  std::vector<int32_t> i = {-5, 6};
  abs_in_place(DType::int32, i.data(), i.size());
  EXPECT_EQ(i, (std::vector<int32_t>{-5, 6}));
}

// --- What the conditioning-scaled tolerance is for: issue #10, items 4 and 5 of its attacks. ---

float half_round(float x) { return half_to_float(float_to_half(x)); }

float sequential_sum(const float* x, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

float pairwise_sum(const float* x, size_t n) {
  if (n <= 8) return sequential_sum(x, n);
  return pairwise_sum(x, n / 2) + pairwise_sum(x + n / 2, n - n / 2);
}

// What a kernel that accumulates in half precision computes.
float half_sum(const float* x, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) s = half_round(s + half_round(x[i]));
  return s;
}

// The milder attack: 256 threads each keep a half partial sum of their strided slice, then the
// partials are added in float.
float half_partials_sum(const float* x, size_t n) {
  std::vector<float> partial(256, 0.0f);
  for (size_t i = 0; i < n; ++i) partial[i % 256] = half_round(partial[i % 256] + half_round(x[i]));
  return pairwise_sum(partial.data(), partial.size());
}

struct RowSums {
  std::vector<float> reference, scale, pairwise, half, half_partials;
};

RowSums row_sums(Distribution d, size_t rows, size_t cols) {
  std::vector<float> in(rows * cols);
  fill_random(DType::float32, d, 20261124, 0, in.data(), in.size());
  std::vector<float> abs_in = in;
  abs_in_place(DType::float32, abs_in.data(), abs_in.size());
  RowSums s;
  for (size_t r = 0; r < rows; ++r) {
    const float* row = in.data() + r * cols;
    s.reference.push_back(sequential_sum(row, cols));                   // the original, as examples' atomics add
    s.scale.push_back(sequential_sum(abs_in.data() + r * cols, cols));  // the original on |in|
    s.pairwise.push_back(pairwise_sum(row, cols));
    s.half.push_back(half_sum(row, cols));
    s.half_partials.push_back(half_partials_sum(row, cols));
  }
  return s;
}

TEST(ConditioningScaledTolerance, ARowSumReorderedInFloatPassesAndHalfAccumulationFails) {
  const Tolerance tol{1e-5, 1e-5};
  for (Distribution d : {Distribution::offset, Distribution::normal, Distribution::mixed_sign}) {
    const RowSums s = row_sums(d, 256, 4096);
    const size_t n = s.reference.size();
    const auto honest = compare_output(DType::float32, s.reference.data(), s.pairwise.data(), n, tol, s.scale.data());
    EXPECT_TRUE(honest.passed()) << to_string(d) << ": " << describe_output_failure("out", honest, tol);
    const auto half = compare_output(DType::float32, s.reference.data(), s.half.data(), n, tol, s.scale.data());
    EXPECT_FALSE(half.passed()) << to_string(d);
    if (d == Distribution::offset) EXPECT_EQ(half.non_finite, static_cast<int64_t>(n)) << "a half sum overflows";
    else {
      const auto partials = compare_output(DType::float32, s.reference.data(), s.half_partials.data(), n, tol,
                                           s.scale.data());
      EXPECT_FALSE(partials.passed()) << to_string(d);
    }
  }
}

TEST(ConditioningScaledTolerance, WithoutTheScaleTheSameRtolRejectsAnHonestReorderingOfCancellingRows) {
  // Why the scale exists: on rows whose sum cancels, |sum| is far below sum |x|, and so is a
  // tolerance relative to |sum| against the rounding error of an honest reordering.
  const RowSums s = row_sums(Distribution::mixed_sign, 256, 4096);
  EXPECT_FALSE(
      compare_output(DType::float32, s.reference.data(), s.pairwise.data(), s.reference.size(), {1e-5, 1e-5}).passed());
}

// Layer normalization of one row as examples/src/layernorm.cu computes it (the original: sequential
// two-pass), as a warp-per-row kernel does (32 strided partials, added pairwise), and with the
// one-pass variance E[x^2] - E[x]^2 a fast kernel might use.
enum class Layernorm { original, two_pass, one_pass };

float lanes_sum(const std::vector<float>& lanes) { return pairwise_sum(lanes.data(), lanes.size()); }

void layernorm_row(Layernorm how, const float* x, const float* gamma, const float* beta, float* y, int cols) {
  const float eps = 1e-5f;
  float mean = 0, var = 0;
  if (how == Layernorm::original) {
    float sum = 0;
    for (int c = 0; c < cols; ++c) sum += x[c];
    mean = sum / cols;
    float sq = 0;
    for (int c = 0; c < cols; ++c) sq += (x[c] - mean) * (x[c] - mean);
    var = sq / cols;
  } else {
    std::vector<float> sum(32, 0.0f), sq(32, 0.0f);
    for (int c = 0; c < cols; ++c) {
      sum[c % 32] += x[c];
      sq[c % 32] += x[c] * x[c];
    }
    mean = lanes_sum(sum) / cols;
    if (how == Layernorm::one_pass) {
      var = std::max(0.0f, lanes_sum(sq) / cols - mean * mean);
    } else {
      std::fill(sq.begin(), sq.end(), 0.0f);
      for (int c = 0; c < cols; ++c) sq[c % 32] += (x[c] - mean) * (x[c] - mean);
      var = lanes_sum(sq) / cols;
    }
  }
  const float inv_std = 1.0f / std::sqrt(var + eps);
  for (int c = 0; c < cols; ++c) y[c] = (x[c] - mean) * inv_std * gamma[c] + beta[c];
}

std::vector<float> layernorm(Layernorm how, Distribution d, int rows, int cols) {
  std::vector<float> x(static_cast<size_t>(rows) * cols), gamma(cols), beta(cols), y(x.size());
  fill_random(DType::float32, d, 77, 0, x.data(), x.size());
  // gamma and beta as examples/kernelbot.toml pins them.
  fill_random(DType::float32, Distribution::normal, 77, 1, gamma.data(), gamma.size());
  fill_random(DType::float32, Distribution::normal, 77, 2, beta.data(), beta.size());
  for (int r = 0; r < rows; ++r)
    layernorm_row(how, x.data() + static_cast<size_t>(r) * cols, gamma.data(), beta.data(),
                  y.data() + static_cast<size_t>(r) * cols, cols);
  return y;
}

TEST(ConditioningScaledTolerance, OnePassVarianceLayernormFailsOnOffsetRowsTwoPassPasses) {
  const Tolerance tol{1e-3, 1e-3};  // examples/kernelbot.toml's layernorm tolerance
  for (int cols : {769, 4096}) {
    const int rows = 64;
    const auto reference = layernorm(Layernorm::original, Distribution::offset, rows, cols);
    const auto two_pass = layernorm(Layernorm::two_pass, Distribution::offset, rows, cols);
    const auto one_pass = layernorm(Layernorm::one_pass, Distribution::offset, rows, cols);
    const auto honest = compare_output(DType::float32, reference.data(), two_pass.data(), reference.size(), tol);
    EXPECT_TRUE(honest.passed()) << cols << ": " << describe_output_failure("y", honest, tol);
    const Tolerance fifth{tol.rtol / 5, tol.atol / 5};
    EXPECT_TRUE(compare_output(DType::float32, reference.data(), two_pass.data(), reference.size(), fifth).passed())
        << cols << ": well inside the tolerance, not at its edge";
    const auto cheat = compare_output(DType::float32, reference.data(), one_pass.data(), reference.size(), tol);
    EXPECT_FALSE(cheat.passed()) << cols;
    EXPECT_GT(cheat.mismatches, static_cast<int64_t>(reference.size() / 10)) << cols;
    // On unit-scale normal rows (what the examples pinned before) the two cannot be told apart.
    const auto normal_reference = layernorm(Layernorm::original, Distribution::normal, rows, cols);
    const auto normal_one_pass = layernorm(Layernorm::one_pass, Distribution::normal, rows, cols);
    EXPECT_TRUE(
        compare_output(DType::float32, normal_reference.data(), normal_one_pass.data(), normal_reference.size(), tol)
            .passed());
  }
}

}  // namespace
}  // namespace kb::judge
