// How many times a measurement calls a variant, from how long one call takes: one rule for every
// timing the judge makes (the original's measurement, a screening, a full evaluation, the PR's
// re-verification). The configured counts ([bench] warmup_runs, min_samples, max_samples) are
// right for kernels of microseconds, where a few thousand calls cost a fraction of a second; a
// 250 ms kernel needs far fewer samples to pin its median (its samples barely scatter relative to
// their length) and would spend minutes on the configured ones. So each count is capped by how
// many calls fit in a time target, and never rises above what is configured. Correctness is not
// decided here: verification trials and passes keep their configured counts (verdicts.md).
// Decided on the CPU, no CUDA: the judge includes it.
#pragma once

#include <cstdint>

#include "core/measurement_defaults.h"

namespace kb {

// Seconds of calls each count aims for, per variant and size set.
inline constexpr double kTracedTargetS = 0.2;     // traced calls (the GPU span the server reports)
inline constexpr double kWarmupTargetS = 0.2;     // untimed warm-up calls
inline constexpr double kProbeTargetS = 0.2;      // single-launch probes (how many launches a sample takes)
inline constexpr double kSamplesTargetS = 1.5;    // the least samples: what min_samples is lowered to
inline constexpr double kSamplesLimitS = 3.0;     // the most samples: what max_samples is lowered to
inline constexpr double kWallClockTargetS = 0.3;  // the judge's wall-clock batches
// A median and its noise need a few samples whatever a call costs.
inline constexpr int64_t kLeastSamples = 5;

// The judge's own counts (not in [bench]) at their values for short kernels.
inline constexpr int64_t kDefaultTracedCalls = 3;
inline constexpr int64_t kDefaultProbeSamples = 3;
inline constexpr int64_t kDefaultWallClockBatches = 3;

struct TimingRepetitions {
  int64_t traced_calls = kDefaultTracedCalls;
  int64_t warmup_runs = kDefaultBench.warmup_runs;
  int64_t probe_samples = kDefaultProbeSamples;
  int64_t min_samples = kDefaultBench.min_samples;
  int64_t max_samples = kDefaultBench.max_samples;
  int64_t wall_clock_batches = kDefaultWallClockBatches;  // before a disagreement asks for more
};

// The counts for a variant whose one call takes `call_us` (the original's first calls at this size
// set; 0 or less: unknown, the configured counts). Each is the configured one, lowered to the
// calls that fit its target, and never under 1 (samples: never under kLeastSamples, or the
// configured min_samples when that is smaller).
TimingRepetitions timing_repetitions(double call_us, const HarnessBench& bench);

// Seconds one variant's timing at one size set takes at most by these counts, calls only: what a
// budget can expect of it.
double timing_seconds_at_most(double call_us, const TimingRepetitions& reps);

}  // namespace kb
