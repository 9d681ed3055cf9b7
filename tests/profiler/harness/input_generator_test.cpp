#include "profiler/harness/input_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kb::harness {
namespace {

std::vector<double> draw(ElemType t, Distribution d, uint64_t seed, uint64_t stream, size_t n) {
  std::vector<unsigned char> buf(n * elem_size(t));
  fill_random(t, d, seed, stream, buf.data(), n);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(load_double(t, buf.data(), i));
  return out;
}

TEST(InputGenerator, NoDistributionEverYieldsZeroForAnyType) {
  for (ElemType t : {ElemType::float64, ElemType::float32, ElemType::float16, ElemType::bfloat16, ElemType::int64,
                     ElemType::int32, ElemType::uint32, ElemType::int8, ElemType::uint8})
    for (Distribution d : {Distribution::uniform, Distribution::normal, Distribution::large, Distribution::mixed_sign})
      for (double v : draw(t, d, 42, 1, 20000)) {
        ASSERT_NE(v, 0.0) << to_string(t) << " " << to_string(d);
        ASSERT_TRUE(std::isfinite(v)) << to_string(t) << " " << to_string(d);
      }
}

TEST(InputGenerator, SameSeedSameNumbersOtherSeedOrStreamOtherNumbers) {
  const auto a = draw(ElemType::float32, Distribution::normal, 7, 0, 1000);
  EXPECT_EQ(a, draw(ElemType::float32, Distribution::normal, 7, 0, 1000));
  EXPECT_NE(a, draw(ElemType::float32, Distribution::normal, 8, 0, 1000));
  EXPECT_NE(a, draw(ElemType::float32, Distribution::normal, 7, 1, 1000));
}

TEST(InputGenerator, ParallelFillMatchesElementByElementDefinition) {
  // Over 1M elements the fill is split across threads; the numbers must not depend on that.
  const size_t n = (size_t{1} << 21) + 17;
  const auto big = draw(ElemType::float32, Distribution::uniform, 3, 2, n);
  const auto small = draw(ElemType::float32, Distribution::uniform, 3, 2, 100);
  for (size_t i = 0; i < small.size(); ++i) ASSERT_EQ(big[i], small[i]);
}

TEST(InputGenerator, DistributionsHaveTheirShape) {
  const auto uniform = draw(ElemType::float64, Distribution::uniform, 1, 0, 10000);
  for (double v : uniform) ASSERT_TRUE(v >= 0.01 && v < 1.0);
  const auto large = draw(ElemType::float32, Distribution::large, 1, 0, 10000);
  for (double v : large) ASSERT_GE(std::fabs(v), 999.0);
  const auto mixed = draw(ElemType::float32, Distribution::mixed_sign, 1, 0, 10000);
  int negatives = 0;
  for (double v : mixed) negatives += v < 0;
  EXPECT_GT(negatives, 4000);
  EXPECT_LT(negatives, 6000);
  const auto normal = draw(ElemType::float64, Distribution::normal, 1, 0, 20000);
  double mean = 0, var = 0;
  for (double v : normal) mean += v / normal.size();
  for (double v : normal) var += (v - mean) * (v - mean) / normal.size();
  EXPECT_NEAR(mean, 0, 0.05);
  EXPECT_NEAR(var, 1, 0.05);
  for (double v : draw(ElemType::uint8, Distribution::mixed_sign, 1, 0, 1000)) ASSERT_GT(v, 0);
  for (double v : draw(ElemType::int8, Distribution::large, 1, 0, 1000)) ASSERT_LE(v, 127);
  for (double v : draw(ElemType::float16, Distribution::large, 1, 0, 1000)) ASSERT_LE(v, 1001);
}

TEST(InputGenerator, RandomScalarsAreModestAndNonZero) {
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const double f = random_scalar(ElemType::float32, Distribution::mixed_sign, seed, 3);
    ASSERT_GE(std::fabs(f), 0.5);
    ASSERT_LE(std::fabs(f), 2.0);
    const double i = random_scalar(ElemType::int32, Distribution::uniform, seed, 3);
    ASSERT_GE(i, 1);
    ASSERT_LE(i, 16);
    ASSERT_EQ(i, std::floor(i));
  }
  EXPECT_FALSE(parse_distribution("gaussian").has_value());
  EXPECT_EQ(parse_distribution("large"), Distribution::large);
}

}  // namespace
}  // namespace kb::harness
