// The measurement settings that both the config ([verify], [bench]) and the HarnessJob carry,
// with their defaults, declared once: config/'s fields start from these values and the job's do
// too, so a job built without a config (a test, the judge's own tools) measures as the default
// config would. No nlohmann here: config.h includes it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kb {

// How the judge times one variant, in the manner of nvbench ([bench] less min_speedup).
struct HarnessBench {
  int64_t warmup_runs = 3;
  double min_time_s = 0.05;  // GPU time of the kept samples, at least
  int64_t min_samples = 20;
  int64_t max_samples = 2000;
  double max_noise = 0.005;  // relative noise target (0.5%)
  double timeout_s = 20;
  bool flush_l2 = true;
  double graph_below_us = 10;   // kernels shorter than this are timed as CUDA graphs of launches
  double max_clock_sag = 0.05;  // samples taken with the SM clock this far under its max are dropped
  double max_error = 0.0015;    // the median's relative standard error at which timing stops
};
inline constexpr HarnessBench kDefaultBench{};

// Verification trials, each on fresh random inputs at every size set.
inline constexpr int64_t kDefaultTrials = 5;
// The geometric-mean ratio of medians a win must reach ([bench].min_speedup).
inline constexpr double kDefaultMinSpeedup = 1.05;

// The input distributions the judge generates, in the order of its Distribution enum
// (profiler/judge/inputs/input_distribution.h). Every one of them is the default, cycled over the trials.
inline constexpr std::array<const char*, 6> kDistributionNames = {"uniform",    "normal", "large",
                                                                  "mixed_sign", "offset", "extreme"};
inline std::vector<std::string> default_distributions() {
  return {kDistributionNames.begin(), kDistributionNames.end()};
}

}  // namespace kb
