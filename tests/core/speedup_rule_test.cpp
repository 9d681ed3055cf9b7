// The speedup rule, the one the judge and kernelbot both apply.
#include "core/speedup_rule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace kb {
namespace {

using ::testing::HasSubstr;

std::vector<SizeTiming> sizes(std::initializer_list<std::tuple<const char*, double, bool>> list) {
  std::vector<SizeTiming> out;
  for (const auto& [label, speedup, significant] : list) {
    SizeTiming t;
    t.size_label = label;
    t.speedup = speedup;
    t.significant = significant;
    out.push_back(t);
  }
  return out;
}

TEST(SpeedupRule, AcceptsOnlyASignificantGeometricMeanWinWithNoSignificantLoss) {
  EXPECT_NEAR(geometric_mean_speedup(sizes({{"a", 2, false}, {"b", 8, false}})), 4, 1e-12);
  const auto win = decide_speedup(sizes({{"n=1", 1.5, true}, {"n=2", 1.2, true}}), 1.05);
  EXPECT_TRUE(win.accepted());
  EXPECT_EQ(win.outcome, SpeedupOutcome::faster);
  EXPECT_NEAR(win.speedup, std::sqrt(1.5 * 1.2), 1e-12);
  EXPECT_EQ(win.reason(), "correct and faster: geometric-mean speedup 1.342x, significant at 2 of 2 sizes");

  const auto loss = decide_speedup(sizes({{"n=1", 2.0, true}, {"n=2", 0.8, true}}), 1.05);
  EXPECT_FALSE(loss.accepted());
  EXPECT_EQ(loss.outcome, SpeedupOutcome::slower);
  EXPECT_EQ(loss.slower_at, "n=2");
  EXPECT_EQ(loss.reason(),
            "correct, but significantly slower than the original at n=2 (geometric-mean speedup 1.265x)");

  const auto small = decide_speedup(sizes({{"n=1", 1.03, true}}), 1.05);
  EXPECT_EQ(small.outcome, SpeedupOutcome::under_minimum);
  EXPECT_EQ(small.reason(), "correct, geometric-mean speedup 1.030x is under the required 1.050x");

  const auto noisy = decide_speedup(sizes({{"n=1", 1.2, false}}), 1.05);
  EXPECT_EQ(noisy.outcome, SpeedupOutcome::within_noise);
  EXPECT_THAT(noisy.reason(), HasSubstr("no size is faster beyond the noise"));
}

// A significant loss outranks a short mean, which outranks a win within the noise.
TEST(SpeedupRule, ChecksSlowerThenTheMinimumThenTheNoise) {
  EXPECT_EQ(decide_speedup(sizes({{"a", 1.01, false}, {"b", 0.9, true}}), 1.05).outcome, SpeedupOutcome::slower);
  EXPECT_EQ(decide_speedup(sizes({{"a", 1.01, false}}), 1.05).outcome, SpeedupOutcome::under_minimum);
  EXPECT_EQ(decide_speedup(sizes({{"a", 1.01, false}}), 1.0).outcome, SpeedupOutcome::within_noise);
  EXPECT_EQ(decide_speedup(sizes({{"a", 1.05, true}}), 1.05).outcome, SpeedupOutcome::faster)
      << "reaching it is enough";
}

TEST(SpeedupRule, ASizeWithoutARatioCountsAsNoSpeedup) {
  const auto d = decide_speedup(sizes({{"a", 4, true}, {"b", 0, false}}), 1.05);
  EXPECT_EQ(d.outcome, SpeedupOutcome::under_minimum);
  EXPECT_NEAR(d.speedup, std::sqrt(4 * 1e-9), 1e-12);
  EXPECT_EQ(geometric_mean_speedup({}), 0);
}

TEST(SpeedupRule, SignificantlyFasterSomewhereNeedsASignificantGain) {
  EXPECT_TRUE(significantly_faster_somewhere(sizes({{"a", 0.99, false}, {"b", 1.2, true}})));
  EXPECT_FALSE(significantly_faster_somewhere(sizes({{"a", 1.5, false}, {"b", 0.8, true}})));
  EXPECT_FALSE(significantly_faster_somewhere({}));
  EXPECT_TRUE(reaches_min_speedup(1.05, 1.05));
  EXPECT_FALSE(reaches_min_speedup(1.049, 1.05));
}

}  // namespace
}  // namespace kb

namespace kb {

TEST(Publishable, OnlyAnAcceptedVerifiedSignificantWinAtTheMinimumIs) {
  EvalResult e;
  e.verdict = Verdict::accepted;
  e.verification.passed = true;
  e.speedup = 1.5;
  SizeTiming t;
  t.speedup = 1.5;
  t.significant = true;
  e.timings = {t};
  EXPECT_TRUE(publishable(e, 1.05)) << why_not_publishable(e, 1.05);
  EXPECT_THAT(why_not_publishable(e, 2.0), HasSubstr("under [bench].min_speedup"));

  EvalResult unverified = e;
  unverified.verification.passed = false;
  unverified.verification.failure = "state independence failed";
  EXPECT_THAT(why_not_publishable(unverified, 1.05), HasSubstr("state independence failed"));

  EvalResult noise = e;
  noise.timings[0].significant = false;
  EXPECT_THAT(why_not_publishable(noise, 1.05), HasSubstr("not faster beyond the noise"));

  EvalResult wrong = e;
  wrong.verdict = Verdict::wrong_result;
  wrong.reason = "output y differs";
  EXPECT_EQ(why_not_publishable(wrong, 1.05), "wrong_result: output y differs");
}
}  // namespace kb
