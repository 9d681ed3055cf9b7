#include "profiler/judge/timing/stopping_criterion.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kb::judge {
namespace {

StoppingParams params() {
  StoppingParams p;
  p.min_samples = 10;
  p.max_samples = 500;
  p.min_time_s = 0.0005;  // 500 us of GPU time
  p.max_noise = 0.01;
  p.timeout_s = 10;
  return p;
}

TEST(StoppingCriterion, StopsOnNoiseTargetOnlyAfterMinSamplesAndMinTime) {
  StoppingCriterion c(params());
  for (int i = 0; i < 9; ++i) {
    c.add_sample(100.0 + (i % 2) * 0.1);  // 0.05% noise
    EXPECT_FALSE(c.finished(0)) << "sample " << i;
  }
  c.add_sample(100.0);
  EXPECT_TRUE(c.finished(0));  // 10 samples, 1000 us
  EXPECT_EQ(c.reason(), "noise target");
  EXPECT_LT(c.current_noise(), 0.01);
}

TEST(StoppingCriterion, MinTimeHoldsBackTheNoiseTarget) {
  StoppingParams p = params();
  p.max_error = 0;  // the noise target alone
  StoppingCriterion c(p);
  for (int i = 0; i < 20; ++i) c.add_sample(10.0);  // quiet but only 200 us in total
  EXPECT_FALSE(c.finished(0));
  for (int i = 0; i < 30; ++i) c.add_sample(10.0);
  EXPECT_TRUE(c.finished(0));
  EXPECT_EQ(c.reason(), "noise target");
}

TEST(StoppingCriterion, AQuietFastKernelStopsAtMinSamplesOnceItsMedianIsKnown) {
  StoppingCriterion c(params());
  for (int i = 0; i < 9; ++i) {
    c.add_sample(10.0 + (i % 3) * 0.001);
    EXPECT_FALSE(c.finished(0)) << "sample " << i;
  }
  c.add_sample(10.0);
  EXPECT_TRUE(c.finished(0));  // 10 samples, 100 us: under min_time_s, and the median is known
  EXPECT_EQ(c.reason(), "median known");
}

TEST(StoppingCriterion, StableNoiseAboveTargetStops) {
  StoppingCriterion c(params());
  // Alternating 90/110: noise ~10%, far above the 1% target, and it settles.
  int i = 0;
  for (; i < 500 && !c.finished(0); ++i) c.add_sample(i % 2 ? 110.0 : 90.0);
  EXPECT_EQ(c.reason(), "noise stable");
  EXPECT_LT(i, 500);
  EXPECT_NEAR(c.current_noise(), 0.1, 0.01);
}

// Samples that scatter by about 2% never reach a 1% noise target, but their median is known to
// 0.15% after a few hundred: the measurement stops there, long before max_samples.
TEST(StoppingCriterion, AScatteredKernelStopsOnceItsMedianIsKnown) {
  StoppingParams p = params();
  p.max_samples = 5000;
  p.stable_window = 100000;  // never "noise stable": only the median's error can stop it
  StoppingCriterion c(p);
  uint64_t state = 12345;
  auto uniform = [&] {  // a fixed LCG: the same samples on every machine
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  int n = 0;
  for (; n < 5000 && !c.finished(0); ++n) c.add_sample(100.0 * (1 + 0.07 * (uniform() - 0.5)));  // ~2% stdev
  EXPECT_EQ(c.reason(), "median known");
  EXPECT_LE(c.median_error(), 0.0015);
  // sigma 2.0% (uniform over 7%): n = (1.2533 * 2.0 / 0.15)^2 ~ 280, give or take the IQR's estimate.
  EXPECT_GT(n, 150);
  EXPECT_LT(n, 500);
}

TEST(StoppingCriterion, MedianErrorOffLeavesTheSampleLimit) {
  StoppingParams p = params();
  p.max_error = 0;
  p.stable_window = 100000;
  p.max_samples = 300;
  StoppingCriterion c(p);
  int n = 0;
  for (; n < 1000 && !c.finished(0); ++n) c.add_sample(n % 2 ? 102.0 : 98.0);
  EXPECT_EQ(c.reason(), "max samples");
  EXPECT_EQ(n, 300);
}

TEST(StoppingCriterion, DriftingNoiseIsNotStable) {
  StoppingParams p = params();
  p.max_samples = 100000;
  StoppingCriterion c(p);
  // Each sample larger than the last: the noise keeps growing, never stable, never on target.
  for (int i = 0; i < 300; ++i) {
    c.add_sample(100.0 * std::pow(1.01, i));
    ASSERT_FALSE(c.finished(0)) << "sample " << i << " " << c.reason();
  }
}

TEST(StoppingCriterion, TimeoutAndMaxSamples) {
  StoppingCriterion timeout(params());
  timeout.add_sample(100);
  EXPECT_TRUE(timeout.finished(10.5));
  EXPECT_EQ(timeout.reason(), "timeout");

  StoppingParams p = params();
  p.max_samples = 30;
  StoppingCriterion capped(p);
  for (int i = 0; i < 29; ++i) capped.add_sample(i % 2 ? 150.0 : 50.0);
  EXPECT_FALSE(capped.finished(0));
  capped.add_sample(150.0);
  EXPECT_TRUE(capped.finished(0));
  EXPECT_EQ(capped.reason(), "max samples");
}

}  // namespace
}  // namespace kb::judge
