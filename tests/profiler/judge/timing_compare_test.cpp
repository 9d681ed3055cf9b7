#include "profiler/judge/timing/timing_compare.h"

#include <gtest/gtest.h>

namespace kb::judge {
namespace {

TEST(Significance, ClearSpeedupWithQuietSamplesIsSignificant) {
  EXPECT_TRUE(speedup_is_significant({100, 99, 101, 0.01}, {80, 79.5, 80.5, 0.01}));
  EXPECT_TRUE(speedup_is_significant({80, 79.5, 80.5, 0.01}, {100, 99, 101, 0.01}));  // slower, also real
}

TEST(Significance, RatioWithinTwiceTheCombinedNoiseIsNot) {
  // 3% apart, 2% noise each, and a middle half as wide as that noise (IQR 2.7% of the median):
  // 2 * sqrt(2) * 2% = 5.7% > 3%.
  EXPECT_FALSE(speedup_is_significant({103, 101.6, 104.4, 0.02}, {100, 98.6, 101.4, 0.02}));
}

TEST(Significance, AFewOutliersDoNotHideAClearSpeedup) {
  // The original: 19 samples at 10 us and one preempted at 30 us (stdev / mean 0.41); the
  // candidate: 20 samples at 6 us. A 1.67x speedup, the middle halves far apart: significant,
  // though 0.67 < 2 * 0.41 (stdev alone would call it noise).
  EXPECT_NEAR(significance_spread({10, 10, 10, 0.41}), 0, 1e-12);
  EXPECT_TRUE(speedup_is_significant({10, 10, 10, 0.41}, {6, 6, 6, 0}));
  // Heavy tails with a tight middle (stdev 2%, IQR 0.2%): 3% apart is a real shift.
  EXPECT_TRUE(speedup_is_significant({103, 102.9, 103.1, 0.02}, {100, 99.9, 100.1, 0.02}));
  // A middle wider than the stdev (two alternating states): the stdev rules, as before.
  EXPECT_NEAR(significance_spread({11, 10, 12, 0.09}), 0.09, 1e-12);
}

TEST(Significance, OverlappingInterquartileRangesAreNot) {
  // 5% apart with tiny noise, but the middle halves overlap.
  EXPECT_FALSE(speedup_is_significant({105, 96, 110, 0.001}, {100, 95, 104, 0.001}));
  EXPECT_FALSE(speedup_is_significant({0, 0, 0, 0}, {1, 1, 1, 0}));
}

TEST(Roofline, FloorIsTheLargerOfBytesAndFlopsTime) {
  // 3e8 bytes at 3000 GB/s = 100 us; 1e9 flops at 50 TFLOP/s = 20 us.
  EXPECT_DOUBLE_EQ(roofline_floor_us(3e8, 1e9, 3000, 50), 100);
  EXPECT_DOUBLE_EQ(roofline_floor_us(3e8, 1e10, 3000, 50), 200);
  EXPECT_DOUBLE_EQ(roofline_floor_us(3e8, 0, 0, 50), 0);  // unknown bandwidth, no flops
  EXPECT_DOUBLE_EQ(percent_of_floor(100, 125), 80);
  EXPECT_DOUBLE_EQ(percent_of_floor(0, 125), 0);
}

TEST(LaunchesPerSample, ShortKernelsGetEnoughLaunchesForFiftyMicroseconds) {
  EXPECT_EQ(launches_per_sample(70, 10), 1);
  EXPECT_EQ(launches_per_sample(10, 10), 1);
  EXPECT_EQ(launches_per_sample(5, 10), 10);
  EXPECT_EQ(launches_per_sample(3, 10), 17);
  EXPECT_EQ(launches_per_sample(0.01, 10), 200);
  EXPECT_EQ(launches_per_sample(0, 10), 1);
}

TEST(ClockSag, DropsOnlyBelowTheAllowedFraction) {
  EXPECT_FALSE(clock_sagged(1980, 1980, 0.05));
  EXPECT_FALSE(clock_sagged(1890, 1980, 0.05));
  EXPECT_TRUE(clock_sagged(1800, 1980, 0.05));
  EXPECT_FALSE(clock_sagged(0, 1980, 0.05));  // unknown clock: keep
}

}  // namespace
}  // namespace kb::judge
