#include "profiler/judge/timing/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kb::judge {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double relative_stdev(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  double ss = 0;
  for (double s : samples) ss += (s - mean) * (s - mean);
  const double stdev = std::sqrt(ss / static_cast<double>(samples.size() - 1));
  return mean != 0 ? stdev / mean : 0;
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = static_cast<long>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_sorted(samples, 0.5);
  s.q1 = quantile_sorted(samples, 0.25);
  s.q3 = quantile_sorted(samples, 0.75);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  if (samples.size() >= 2) {
    double ss = 0;
    for (double v : samples) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(samples.size() - 1));
    s.noise = s.mean != 0 ? s.stdev / s.mean : 0;
  }
  return s;
}

uint64_t union_length(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t covered = 0, begin = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) covered += end - begin;
    open = true;
    begin = s;
    end = e;
  }
  if (open) covered += end - begin;
  return covered;
}

}  // namespace kb::judge
