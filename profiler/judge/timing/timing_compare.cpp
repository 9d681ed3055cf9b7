#include "profiler/judge/timing/timing_compare.h"

#include <algorithm>
#include <cmath>

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
