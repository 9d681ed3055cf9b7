#include "core/timing_repetitions.h"

#include <algorithm>
#include <cmath>

namespace kb {
namespace {

// How many calls of `call_us` fit in `target_s`, at least 1.
int64_t calls_in(double target_s, double call_us) {
  const double n = std::floor(target_s * 1e6 / call_us);
  return n >= 1 ? (n > 1e12 ? int64_t{1'000'000'000'000} : static_cast<int64_t>(n)) : 1;
}

// The configured count, lowered to what fits in `target_s`, at least `floor` (or the configured
// count, when that is smaller).
int64_t capped(int64_t configured, double target_s, double call_us, int64_t floor = 1) {
  return std::min(configured, std::max(floor, calls_in(target_s, call_us)));
}

}  // namespace

TimingRepetitions timing_repetitions(double call_us, const HarnessBench& bench) {
  TimingRepetitions r;
  r.warmup_runs = bench.warmup_runs;
  r.min_samples = bench.min_samples;
  r.max_samples = std::max(bench.min_samples, bench.max_samples);
  if (!(call_us > 0) || !std::isfinite(call_us)) return r;
  r.traced_calls = capped(kDefaultTracedCalls, kTracedTargetS, call_us);
  // warmup_runs = 0 is the user's choice; a long kernel still gets no more than it asked for.
  r.warmup_runs = bench.warmup_runs == 0 ? 0 : capped(bench.warmup_runs, kWarmupTargetS, call_us);
  r.probe_samples = capped(kDefaultProbeSamples, kProbeTargetS, call_us);
  r.min_samples = capped(bench.min_samples, kSamplesTargetS, call_us, kLeastSamples);
  r.max_samples = std::max(r.min_samples, capped(r.max_samples, kSamplesLimitS, call_us, kLeastSamples));
  r.wall_clock_batches = capped(kDefaultWallClockBatches, kWallClockTargetS, call_us);
  return r;
}

double timing_seconds_at_most(double call_us, const TimingRepetitions& reps) {
  if (!(call_us > 0)) return 0;
  const int64_t calls = reps.traced_calls + reps.warmup_runs + reps.probe_samples + reps.max_samples +
                        reps.wall_clock_batches;
  return static_cast<double>(calls) * call_us * 1e-6;
}

}  // namespace kb
