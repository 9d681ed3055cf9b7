#include "profiler/judge/inputs/input_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace kb::judge {
namespace {

std::vector<double> draw(DType t, Distribution d, uint64_t seed, uint64_t stream, size_t n) {
  std::vector<unsigned char> buf(n * dtype_size(t));
  fill_random(t, d, seed, stream, buf.data(), n);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(load_double(t, buf.data(), i));
  return out;
}

TEST(InputGenerator, NoDistributionEverYieldsZeroForAnyType) {
  for (DType t : {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int64, DType::int32,
                  DType::uint32, DType::int8, DType::uint8})
    for (Distribution d : {Distribution::uniform, Distribution::normal, Distribution::large, Distribution::mixed_sign,
                           Distribution::offset, Distribution::extreme})
      for (double v : draw(t, d, 42, 1, 20000)) {
        ASSERT_NE(v, 0.0) << to_string(t) << " " << to_string(d);
        ASSERT_TRUE(std::isfinite(v)) << to_string(t) << " " << to_string(d);
      }
}

TEST(InputGenerator, SameSeedSameNumbersOtherSeedOrStreamOtherNumbers) {
  const auto a = draw(DType::float32, Distribution::normal, 7, 0, 1000);
  EXPECT_EQ(a, draw(DType::float32, Distribution::normal, 7, 0, 1000));
  EXPECT_NE(a, draw(DType::float32, Distribution::normal, 8, 0, 1000));
  EXPECT_NE(a, draw(DType::float32, Distribution::normal, 7, 1, 1000));
}

TEST(InputGenerator, ParallelFillMatchesElementByElementDefinition) {
  // Over 1M elements the fill is split across threads; the numbers must not depend on that.
  const size_t n = (size_t{1} << 21) + 17;
  const auto big = draw(DType::float32, Distribution::uniform, 3, 2, n);
  const auto small = draw(DType::float32, Distribution::uniform, 3, 2, 100);
  for (size_t i = 0; i < small.size(); ++i) ASSERT_EQ(big[i], small[i]);
}

TEST(InputGenerator, DistributionsHaveTheirShape) {
  const auto uniform = draw(DType::float64, Distribution::uniform, 1, 0, 10000);
  for (double v : uniform) ASSERT_TRUE(v >= 0.01 && v < 1.0);
  const auto large = draw(DType::float32, Distribution::large, 1, 0, 10000);
  for (double v : large) ASSERT_GE(std::fabs(v), 999.0);
  const auto mixed = draw(DType::float32, Distribution::mixed_sign, 1, 0, 10000);
  int negatives = 0;
  for (double v : mixed) negatives += v < 0;
  EXPECT_GT(negatives, 4000);
  EXPECT_LT(negatives, 6000);
  const auto normal = draw(DType::float64, Distribution::normal, 1, 0, 20000);
  double mean = 0, var = 0;
  for (double v : normal) mean += v / normal.size();
  for (double v : normal) var += (v - mean) * (v - mean) / normal.size();
  EXPECT_NEAR(mean, 0, 0.05);
  EXPECT_NEAR(var, 1, 0.05);
  for (double v : draw(DType::uint8, Distribution::mixed_sign, 1, 0, 1000)) ASSERT_GT(v, 0);
  for (double v : draw(DType::int8, Distribution::large, 1, 0, 1000)) ASSERT_LE(v, 127);
  for (double v : draw(DType::float16, Distribution::large, 1, 0, 1000)) ASSERT_LE(v, 1001);
}

TEST(InputGenerator, RandomScalarsAreModestAndNonZero) {
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const double f = random_scalar(DType::float32, Distribution::mixed_sign, seed, 3);
    ASSERT_GE(std::fabs(f), 0.5);
    ASSERT_LE(std::fabs(f), 2.0);
    const double i = random_scalar(DType::int32, Distribution::uniform, seed, 3);
    ASSERT_GE(i, 1);
    ASSERT_LE(i, 16);
    ASSERT_EQ(i, std::floor(i));
  }
  EXPECT_FALSE(parse_distribution("gaussian").has_value());
  EXPECT_EQ(parse_distribution("large"), Distribution::large);
  for (int i = 0; i < kDistributionCount; ++i) {
    const auto d = static_cast<Distribution>(i);
    EXPECT_EQ(parse_distribution(to_string(d)), d) << to_string(d);
  }
  EXPECT_EQ(parse_distribution("offset"), Distribution::offset);
  EXPECT_EQ(parse_distribution("extreme"), Distribution::extreme);
}

// The contract a GPU generator relies on: fill_random stores element_value rounded to the type.
TEST(InputGenerator, FillStoresElementValueOfTheHeaderFormulas) {
  for (DType t : {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int64, DType::int32,
                  DType::uint32, DType::int8, DType::uint8})
    for (int di = 0; di < kDistributionCount; ++di) {
      const auto d = static_cast<Distribution>(di);
      std::vector<unsigned char> filled(5000 * dtype_size(t)), expected(5000 * dtype_size(t));
      fill_random(t, d, 11, 4, filled.data(), 5000);
      for (size_t i = 0; i < 5000; ++i) store_double(t, expected.data(), i, element_value(t, d, 11, 4, i));
      ASSERT_EQ(filled, expected) << to_string(t) << " " << to_string(d);
    }
}

TEST(InputGenerator, LargeAndMixedSignKeepTheirDocumentedRanges) {
  for (double v : draw(DType::float32, Distribution::large, 5, 0, 10000)) ASSERT_TRUE(v >= 999.9 && v < 1.0001e6);
  for (double v : draw(DType::float16, Distribution::large, 5, 0, 10000)) ASSERT_TRUE(v >= 99.9 && v <= 1001);
  for (double v : draw(DType::int32, Distribution::large, 5, 0, 10000)) ASSERT_TRUE(v >= 1000 && v <= 1e6);
  for (double v : draw(DType::int8, Distribution::large, 5, 0, 10000)) ASSERT_TRUE(v >= 63 && v <= 127);
  for (double v : draw(DType::uint8, Distribution::large, 5, 0, 10000)) ASSERT_TRUE(v >= 127 && v <= 255);
  for (double v : draw(DType::float32, Distribution::mixed_sign, 5, 0, 10000))
    ASSERT_TRUE(std::fabs(v) >= 0.0099 && std::fabs(v) < 10.001);
  for (double v : draw(DType::int8, Distribution::mixed_sign, 5, 0, 10000)) ASSERT_TRUE(v != 0 && std::fabs(v) <= 100);
  for (double v : draw(DType::int8, Distribution::normal, 5, 0, 10000)) ASSERT_TRUE(v != 0 && std::fabs(v) <= 127);
}

// offset: one mean per buffer, large against the spread; every element on a power-of-two grid, so
// the sums of a row are exact in float32 in any order.
TEST(InputGenerator, OffsetGivesEachBufferALargeMeanAndASmallSpread) {
  std::set<double> magnitudes;
  int negative_buffers = 0;
  for (uint64_t stream = 0; stream < 64; ++stream) {
    const auto v = draw(DType::float32, Distribution::offset, 9, stream, 4096);
    double mean = 0, var = 0;
    for (double x : v) mean += x / v.size();
    for (double x : v) var += (x - mean) * (x - mean) / v.size();
    const double spread = std::sqrt(var);
    ASSERT_GE(std::fabs(mean), 900);
    ASSERT_LE(std::fabs(mean), 8000);
    EXPECT_NEAR(std::fabs(mean) / spread, 240, 30) << "stream " << stream;
    for (double x : v) ASSERT_EQ(x > 0, mean > 0) << "one sign per buffer";
    negative_buffers += mean < 0;
    // The grid: 2^k for the buffer's k, with every element an integer multiple of it.
    const double grid = std::exp2(std::round(std::log2(std::fabs(mean) / 960)));
    magnitudes.insert(grid);
    for (double x : v) ASSERT_EQ(x / grid, std::round(x / grid));
    // Any summation order is exact: a float sum equals the double one.
    float forward = 0, backward = 0;
    double exact = 0;
    for (size_t i = 0; i < v.size(); ++i) forward += static_cast<float>(v[i]);
    for (size_t i = v.size(); i-- > 0;) backward += static_cast<float>(v[i]);
    for (double x : v) exact += x;
    ASSERT_EQ(forward, exact);
    ASSERT_EQ(backward, exact);
  }
  EXPECT_GT(negative_buffers, 16);
  EXPECT_LT(negative_buffers, 48);
  EXPECT_EQ(magnitudes, (std::set<double>{1, 2, 4, 8}));
}

TEST(InputGenerator, OffsetFitsEachTypeExactlyAndDefeatsHalfAccumulators) {
  for (DType t : {DType::float64, DType::float16, DType::bfloat16})
    for (uint64_t stream = 0; stream < 16; ++stream)
      for (size_t i = 0; i < 2000; ++i) {
        const double v = element_value(t, Distribution::offset, 3, stream, i);
        std::vector<unsigned char> cell(dtype_size(t));
        store_double(t, cell.data(), 0, v);
        ASSERT_EQ(load_double(t, cell.data(), 0), v) << to_string(t) << ": the type holds it exactly";
      }
  for (uint64_t stream = 0; stream < 16; ++stream) {
    // float16: a row sum of 8192 fits the float16 output; a float16 accumulator stalls far below it.
    const auto h = draw(DType::float16, Distribution::offset, 3, stream, 8192);
    double exact = 0;
    float in_half = 0;
    for (double x : h) {
      exact += x;
      in_half = half_to_float(float_to_half(in_half + static_cast<float>(x)));
    }
    ASSERT_LT(std::fabs(exact), 65504);
    ASSERT_GT(std::fabs(exact - in_half), 0.2 * std::fabs(exact)) << "a half accumulator must be far off";
    // float32: any half accumulation of a row overflows.
    const auto f = draw(DType::float32, Distribution::offset, 3, stream, 256);
    float half_sum = 0;
    for (double x : f) half_sum = half_to_float(float_to_half(half_sum + half_to_float(float_to_half(x))));
    ASSERT_TRUE(std::isinf(half_sum));
  }
  const auto f64 = draw(DType::float64, Distribution::offset, 3, 0, 4096);
  double mean = 0, var = 0;
  for (double x : f64) mean += x / f64.size();
  for (double x : f64) var += (x - mean) * (x - mean) / f64.size();
  EXPECT_GT(std::fabs(mean) / std::sqrt(var), 10000);  // a one-pass variance in double misses 1e-10
  for (double v : draw(DType::int8, Distribution::offset, 3, 1, 5000))
    ASSERT_TRUE(std::fabs(v) >= 84 && std::fabs(v) <= 116);
  for (double v : draw(DType::uint8, Distribution::offset, 3, 1, 5000)) ASSERT_TRUE(v >= 184 && v <= 216);
  for (uint64_t stream = 0; stream < 16; ++stream)
    for (double v : draw(DType::int32, Distribution::offset, 3, stream, 1000))
      ASSERT_TRUE(std::fabs(v) >= 1000 - 16 && std::fabs(v) <= 10000 + 16);
}

TEST(InputGenerator, ExtremeMagnitudesSitNearTheLimitsACorrectKernelSurvives) {
  const auto f = draw(DType::float32, Distribution::extreme, 2, 0, 65536);
  float sum_of_squares = 0;
  for (double v : f) {
    ASSERT_GE(v, std::exp2(48));
    ASSERT_LT(v, std::exp2(52));
    ASSERT_TRUE(std::isinf(half_to_float(float_to_half(static_cast<float>(v))))) << "overflows a half";
    sum_of_squares += static_cast<float>(v) * static_cast<float>(v);
  }
  EXPECT_TRUE(std::isfinite(sum_of_squares)) << "2^16 squares stay finite in float32";
  for (double v : draw(DType::bfloat16, Distribution::extreme, 2, 0, 10000))
    ASSERT_TRUE(v >= std::exp2(47.99) && v <= std::exp2(52));
  for (double v : draw(DType::float64, Distribution::extreme, 2, 0, 10000)) {
    ASSERT_TRUE(v >= std::exp2(496) && v < std::exp2(500));
    ASSERT_TRUE(std::isinf(static_cast<float>(v))) << "overflows a float";
  }
  for (double v : draw(DType::float16, Distribution::extreme, 2, 0, 10000)) {
    ASSERT_TRUE(v >= 256 && v <= 1024);
    ASSERT_TRUE(std::isinf(half_to_float(float_to_half(static_cast<float>(v * v))))) << "a square overflows a half";
  }
  const auto i32 = draw(DType::int32, Distribution::extreme, 2, 0, 4096);
  double sum = 0;
  int negatives = 0;
  for (double v : i32) {
    ASSERT_TRUE(std::fabs(v) >= 262144 && std::fabs(v) < 524288);
    sum += std::fabs(v);
    negatives += v < 0;
  }
  EXPECT_LT(sum, 2147483647.0) << "a sum of 4096 cannot overflow int32";
  EXPECT_GT(negatives, 1500);
  for (double v : draw(DType::uint32, Distribution::extreme, 2, 0, 4096)) ASSERT_TRUE(v >= 524288 && v < 1048576);
  for (double v : draw(DType::int64, Distribution::extreme, 2, 0, 4096))
    ASSERT_TRUE(std::fabs(v) >= std::exp2(50) && std::fabs(v) < std::exp2(51));
  for (double v : draw(DType::int8, Distribution::extreme, 2, 0, 4096))
    ASSERT_TRUE(std::fabs(v) >= 100 && std::fabs(v) <= 127);
  for (double v : draw(DType::uint8, Distribution::extreme, 2, 0, 4096)) ASSERT_TRUE(v >= 200 && v <= 255);
}

// range = [lo, hi] (token ids into a vocabulary): every value in lo <= v < hi, both ends reached,
// the same numbers on every run, and the parallel fill (over 1M elements) agrees with the formula.
TEST(InputGenerator, RangeFillsStayInsideLoInclusiveHiExclusive) {
  for (DType t : {DType::int32, DType::int64, DType::uint32, DType::int8, DType::uint8}) {
    const int64_t lo = t == DType::int8 ? -5 : 0, hi = t == DType::int8 ? 7 : 50;
    std::vector<unsigned char> buf(20000 * dtype_size(t));
    fill_range(t, lo, hi, 11, 3, buf.data(), 20000);
    std::set<double> seen;
    for (size_t i = 0; i < 20000; ++i) {
      const double v = load_double(t, buf.data(), i);
      ASSERT_GE(v, lo) << to_string(t);
      ASSERT_LT(v, hi) << to_string(t);
      seen.insert(v);
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(hi - lo)) << "every value of the range is drawn, " << to_string(t);
  }
  // A one-value range and a range far from zero.
  std::vector<int32_t> one(100), far(100);
  fill_range(DType::int32, 7, 8, 1, 0, one.data(), one.size());
  EXPECT_TRUE(std::all_of(one.begin(), one.end(), [](int32_t v) { return v == 7; }));
  fill_range(DType::int32, 1000000, 1000010, 1, 0, far.data(), far.size());
  EXPECT_TRUE(std::all_of(far.begin(), far.end(), [](int32_t v) { return v >= 1000000 && v < 1000010; }));

  const size_t n = (size_t{1} << 20) + 17;
  std::vector<int64_t> big(n);
  fill_range(DType::int64, 0, 32000, 5, 2, big.data(), n);
  for (size_t i : {size_t{0}, size_t{12345}, n / 2, n - 1})
    EXPECT_EQ(static_cast<double>(big[i]), range_value(0, 32000, 5, 2, i)) << i;
  std::vector<int64_t> again(n);
  fill_range(DType::int64, 0, 32000, 5, 2, again.data(), n);
  EXPECT_EQ(big, again);
}

}  // namespace
}  // namespace kb::judge
