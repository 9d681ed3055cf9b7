// The one number formatter of tables and PR bodies.
#include "core/number_format.h"

#include <gtest/gtest.h>

TEST(NumberFormat, MicrosecondsKeepTheDigitsThatShowHalfAPercent) {
  EXPECT_EQ(kb::format_us(9.83), "9.830");
  EXPECT_EQ(kb::format_us(97.184), "97.18");
  EXPECT_EQ(kb::format_us(1234.56), "1234.6");
  EXPECT_EQ(kb::format_us(0), "-");
  EXPECT_EQ(kb::format_us(-1), "-");
}

TEST(NumberFormat, SpeedupsKeepTheDigitsThatShowHalfAPercent) {
  EXPECT_EQ(kb::format_speedup(0.95), "0.950x");
  EXPECT_EQ(kb::format_speedup(1.0464), "1.046x");
  EXPECT_EQ(kb::format_speedup(1.05), "1.050x");
  EXPECT_EQ(kb::format_speedup(1.9994), "1.999x");
  EXPECT_EQ(kb::format_speedup(2.0), "2.00x");
  EXPECT_EQ(kb::format_speedup(3.6512), "3.65x");
  EXPECT_EQ(kb::format_speedup(19.994), "19.99x");
  EXPECT_EQ(kb::format_speedup(42.66), "42.7x");
  EXPECT_EQ(kb::format_speedup(0), "-");
  EXPECT_EQ(kb::format_speedup(-1), "-");
}

TEST(NumberFormat, FractionsArePercentagesWithTwoDecimals) {
  EXPECT_EQ(kb::format_fraction_percent(0.004), "0.40%");
  EXPECT_EQ(kb::format_fraction_percent(0.12345), "12.35%");
  EXPECT_EQ(kb::format_fixed(2.0, 3), "2.000");
}
