// The repetition rule: a 5 us kernel keeps the configured counts, a 275 ms one is measured in a
// few seconds with enough samples for a median and its noise.
#include "core/timing_repetitions.h"

#include <gtest/gtest.h>

using namespace kb;

TEST(TimingRepetitions, AShortKernelKeepsTheConfiguredCounts) {
  const TimingRepetitions r = timing_repetitions(5, kDefaultBench);
  EXPECT_EQ(r.traced_calls, kDefaultTracedCalls);
  EXPECT_EQ(r.warmup_runs, kDefaultBench.warmup_runs);
  EXPECT_EQ(r.probe_samples, kDefaultProbeSamples);
  EXPECT_EQ(r.min_samples, kDefaultBench.min_samples);
  EXPECT_EQ(r.max_samples, kDefaultBench.max_samples);
  EXPECT_EQ(r.wall_clock_batches, kDefaultWallClockBatches);
}

TEST(TimingRepetitions, AnUnknownDurationKeepsTheConfiguredCounts) {
  for (double unknown : {0.0, -1.0}) {
    const TimingRepetitions r = timing_repetitions(unknown, kDefaultBench);
    EXPECT_EQ(r.min_samples, kDefaultBench.min_samples);
    EXPECT_EQ(r.max_samples, kDefaultBench.max_samples);
    EXPECT_EQ(r.warmup_runs, kDefaultBench.warmup_runs);
  }
}

TEST(TimingRepetitions, ASlowKernelTakesFewCallsAndStillStatesItsNoise) {
  const double call_us = 275'000;
  const TimingRepetitions r = timing_repetitions(call_us, kDefaultBench);
  EXPECT_EQ(r.traced_calls, 1);
  EXPECT_EQ(r.warmup_runs, 1);
  EXPECT_EQ(r.probe_samples, 1);
  EXPECT_EQ(r.min_samples, kLeastSamples);  // 1.5 s holds 5 calls of 275 ms
  EXPECT_EQ(r.max_samples, 10);             // 3 s holds 10
  EXPECT_EQ(r.wall_clock_batches, 1);
  // The original alone at one size set: at most ~4 s of calls, well inside 10 s.
  EXPECT_LE(timing_seconds_at_most(call_us, r), 4.0);
  EXPECT_GE(timing_seconds_at_most(call_us, r), 2.0);
}

TEST(TimingRepetitions, CountsFallSmoothlyBetween) {
  // 20 ms: the configured 20 samples still fit the 1.5 s target (75 calls), the limit is 150.
  const TimingRepetitions mid = timing_repetitions(20'000, kDefaultBench);
  EXPECT_EQ(mid.min_samples, 20);
  EXPECT_EQ(mid.max_samples, 150);
  EXPECT_EQ(mid.warmup_runs, 3);
  // 100 ms: 15 samples at least, 30 at most; 2 warm-ups.
  const TimingRepetitions slow = timing_repetitions(100'000, kDefaultBench);
  EXPECT_EQ(slow.min_samples, 15);
  EXPECT_EQ(slow.max_samples, 30);
  EXPECT_EQ(slow.warmup_runs, 2);
  EXPECT_EQ(slow.wall_clock_batches, 3);
}

TEST(TimingRepetitions, NeverRisesAboveWhatIsConfigured) {
  HarnessBench bench;
  bench.min_samples = 3;
  bench.max_samples = 4;
  bench.warmup_runs = 0;
  const TimingRepetitions r = timing_repetitions(275'000, bench);
  EXPECT_EQ(r.min_samples, 3);  // under kLeastSamples because the user asked for fewer
  EXPECT_EQ(r.max_samples, 4);
  EXPECT_EQ(r.warmup_runs, 0);
  // A screening's short timing (max 30 samples) of a slow kernel is capped by the rule too.
  HarnessBench screen;
  screen.max_samples = 30;
  screen.min_samples = 20;
  const TimingRepetitions s = timing_repetitions(275'000, screen);
  EXPECT_EQ(s.min_samples, kLeastSamples);
  EXPECT_EQ(s.max_samples, 10);
}
