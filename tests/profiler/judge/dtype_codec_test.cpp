#include "profiler/judge/dtype_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kb::judge {
namespace {

TEST(DtypeCodec, ParsesEveryTypeAndKnowsItsSize) {
  const std::pair<const char*, size_t> types[] = {{"float64", 8}, {"float32", 4}, {"float16", 2},
                                                  {"bfloat16", 2}, {"int64", 8},  {"int32", 4},
                                                  {"uint32", 4},  {"int8", 1},    {"uint8", 1}};
  for (const auto& [name, size] : types) {
    auto t = parse_elem_type(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(elem_size(*t), size) << name;
    EXPECT_STREQ(to_string(*t), name);
  }
  EXPECT_FALSE(parse_elem_type("float128").has_value());
}

TEST(DtypeCodec, HalfRoundTripsRepresentableValuesAndRoundsToNearestEven) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /* smallest normal */, 5.9604645e-08f /* subnormal */})
    EXPECT_EQ(half_to_float(float_to_half(v)), v) << v;
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3C00);  // halfway, rounds to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3C02);  // halfway, rounds to even (up)
  EXPECT_EQ(float_to_half(70000.0f), 0x7C00);             // overflow to +Inf
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
  store_double(ElemType::int8, buf.data(), 0, 300);
  EXPECT_EQ(load_int(ElemType::int8, buf.data(), 0), 127);
  store_double(ElemType::uint8, buf.data(), 0, -5);
  EXPECT_EQ(load_int(ElemType::uint8, buf.data(), 0), 0);
  store_double(ElemType::int64, buf.data(), 0, -123456789012.0);
  EXPECT_EQ(load_int(ElemType::int64, buf.data(), 0), -123456789012);
}

TEST(DtypeCodec, PoisonIsDetectedAndIsNotWhatArithmeticProduces) {
  for (ElemType t : {ElemType::float64, ElemType::float32, ElemType::float16, ElemType::bfloat16, ElemType::int32,
                     ElemType::uint8}) {
    std::vector<unsigned char> buf(4 * elem_size(t));
    fill_poison(t, buf.data(), 4);
    for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(is_poison(t, buf.data(), i)) << to_string(t);
    store_double(t, buf.data(), 2, elem_is_float(t) ? NAN : 7);  // a computed NaN is not the poison
    EXPECT_FALSE(is_poison(t, buf.data(), 2)) << to_string(t);
    if (elem_is_float(t)) {
      EXPECT_TRUE(std::isnan(load_double(t, buf.data(), 0))) << to_string(t);
    }
  }
}

}  // namespace
}  // namespace kb::judge
