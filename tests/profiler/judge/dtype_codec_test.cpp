#include "profiler/judge/inputs/dtype_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kb::judge {
namespace {

TEST(DtypeCodec, HalfRoundTripsRepresentableValuesAndRoundsToNearestEven) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /* smallest normal */, 5.9604645e-08f /* subnormal */})
    EXPECT_EQ(half_to_float(float_to_half(v)), v) << v;
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3C00);  // halfway, rounds to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3C02);  // halfway, rounds to even (up)
  EXPECT_EQ(float_to_half(70000.0f), 0x7C00);            // overflow to +Inf
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
}

TEST(DtypeCodec, Bfloat16KeepsTheExponentRangeOfFloat) {
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(1e30f)), bfloat16_to_float(float_to_bfloat16(1e30f)));
  EXPECT_NEAR(bfloat16_to_float(float_to_bfloat16(1e30f)), 1e30f, 1e30f * 0.01f);
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
}

TEST(DtypeCodec, IntegersClampInsteadOfWrapping) {
  std::vector<unsigned char> buf(8);
  store_double(DType::int8, buf.data(), 0, 300);
  EXPECT_EQ(load_int(DType::int8, buf.data(), 0), 127);
  store_double(DType::uint8, buf.data(), 0, -5);
  EXPECT_EQ(load_int(DType::uint8, buf.data(), 0), 0);
  store_double(DType::int64, buf.data(), 0, -123456789012.0);
  EXPECT_EQ(load_int(DType::int64, buf.data(), 0), -123456789012);
}

TEST(DtypeCodec, PoisonIsDetectedAndIsNotWhatArithmeticProduces) {
  for (DType t : {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int32, DType::uint8}) {
    std::vector<unsigned char> buf(4 * dtype_size(t));
    fill_poison(t, buf.data(), 4);
    for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(is_poison(t, buf.data(), i)) << to_string(t);
    store_double(t, buf.data(), 2, dtype_is_float(t) ? NAN : 7);  // a computed NaN is not the poison
    EXPECT_FALSE(is_poison(t, buf.data(), 2)) << to_string(t);
    if (dtype_is_float(t)) {
      EXPECT_TRUE(std::isnan(load_double(t, buf.data(), 0))) << to_string(t);
    }
  }
}

}  // namespace
}  // namespace kb::judge
