// The one number formatter of tables and PR bodies.
#include "common/number_format.h"

#include <gtest/gtest.h>

TEST(NumberFormat, MicrosecondsKeepTheDigitsThatShowHalfAPercent) {
  EXPECT_EQ(kb::format_us(9.83), "9.830");
  EXPECT_EQ(kb::format_us(97.184), "97.18");
  EXPECT_EQ(kb::format_us(1234.56), "1234.6");
  EXPECT_EQ(kb::format_us(0), "-");
  EXPECT_EQ(kb::format_us(-1), "-");
}

TEST(NumberFormat, FractionsArePercentagesWithTwoDecimals) {
  EXPECT_EQ(kb::format_fraction_percent(0.004), "0.40%");
  EXPECT_EQ(kb::format_fraction_percent(0.12345), "12.35%");
  EXPECT_EQ(kb::format_fixed(2.0, 3), "2.000");
}
