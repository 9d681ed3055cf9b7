#include "profiler/judge/timing_compare.h"

#include <algorithm>
#include <cmath>

#include "common/number_format.h"

namespace kb::judge {

double significance_spread(const TimingSummary& t) {
  if (t.median <= 0 || t.q3 < t.q1) return t.noise;
  return std::min(t.noise, (t.q3 - t.q1) / 1.349 / t.median);
}

bool speedup_is_significant(const TimingSummary& a, const TimingSummary& b) {
  if (a.median <= 0 || b.median <= 0) return false;
  const double ratio = a.median / b.median;
  const double sa = significance_spread(a), sb = significance_spread(b);
  const double combined = std::sqrt(sa * sa + sb * sb);
  const bool beyond_noise = std::fabs(ratio - 1) > 2 * combined;
  const bool iqr_apart = b.q3 < a.q1 || b.q1 > a.q3;
  return beyond_noise && iqr_apart;
}

double roofline_floor_us(double bytes, double flops, double copy_bandwidth_gbps, double fp32_tflops) {
  double floor = 0;
  if (bytes > 0 && copy_bandwidth_gbps > 0) floor = std::max(floor, bytes / (copy_bandwidth_gbps * 1e3));
  if (flops > 0 && fp32_tflops > 0) floor = std::max(floor, flops / (fp32_tflops * 1e6));
  return floor;
}

double percent_of_floor(double floor_us, double median_us) {
  if (floor_us <= 0 || median_us <= 0) return 0;
  return floor_us / median_us * 100.0;
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) {
    if (v <= 0) return 0;
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

SpeedupJudgement judge_speedup(const std::vector<SizeOutcome>& sizes, double min_speedup) {
  SpeedupJudgement j;
  std::vector<double> ratios;
  int faster = 0;
  std::string slower;
  for (const auto& s : sizes) {
    ratios.push_back(s.speedup);
    if (s.significant && s.speedup > 1) ++faster;
    if (s.significant && s.speedup < 1 && slower.empty()) slower = s.label;
  }
  const double g = geometric_mean(ratios);
  const std::string mean = format_speedup(g);
  if (!slower.empty()) {
    j.reason = std::string("correct, but significantly slower than the original at ") + slower +
               " (geometric-mean speedup " + mean + ")";
  } else if (g < min_speedup) {
    j.reason = "correct, geometric-mean speedup " + mean + " is under the required " + format_speedup(min_speedup);
  } else if (faster == 0) {
    j.reason = "correct, geometric-mean speedup " + mean + " but no size is faster beyond the noise";
  } else {
    j.accepted = true;
    j.reason = "correct and faster: geometric-mean speedup " + mean + ", significant at " +
               std::to_string(faster) + " of " + std::to_string(sizes.size()) + " sizes";
  }
  return j;
}

int launches_per_sample(double median_us, double graph_below_us) {
  if (median_us <= 0 || median_us >= graph_below_us) return 1;
  const double k = std::ceil(50.0 / median_us);
  return static_cast<int>(std::clamp(k, 2.0, 200.0));
}

bool clock_sagged(double clock_mhz, double max_clock_mhz, double max_sag) {
  if (clock_mhz <= 0 || max_clock_mhz <= 0) return false;
  return clock_mhz < max_clock_mhz * (1.0 - max_sag);
}

}  // namespace kb::judge
