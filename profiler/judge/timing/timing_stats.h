// Summary statistics of timing samples: the numbers a TimingStats reports.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace kb::judge {

struct SampleSummary {
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0;
  double stdev = 0;  // sample standard deviation (n - 1)
  double noise = 0;  // stdev / mean; 0 with fewer than two samples
  long count = 0;
};

// Quantile `q` in [0, 1] of sorted values, linear interpolation between closest ranks (the
// definition numpy calls "linear"). Empty input gives 0.
double quantile_sorted(const std::vector<double>& sorted, double q);

SampleSummary summarize(std::vector<double> samples);

// The length covered by at least one of the [start, end) intervals (their union): a traced call's
// GPU busy time, which idle gaps between its activities do not count in.
uint64_t union_length(std::vector<std::pair<uint64_t, uint64_t>> intervals);

// Relative standard deviation of `samples` (stdev / mean), 0 with fewer than two.
double relative_stdev(const std::vector<double>& samples);

}  // namespace kb::judge
