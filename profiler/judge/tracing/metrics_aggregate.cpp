#include "profiler/judge/tracing/metrics_aggregate.h"

#include <cmath>

namespace kb::judge {

const std::vector<MetricName>& collected_metrics() {
  static const std::vector<MetricName> metrics = {
      {"gpu__time_duration.sum", "duration_us"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct"},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory_throughput_pct"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct"},
      {"dram__bytes_read.sum", "dram_bytes_read"},
      {"dram__bytes_write.sum", "dram_bytes_write"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct"},
      {"l1tex__t_sector_hit_rate.pct", "l1_hit_rate_pct"},
      {"lts__t_sector_hit_rate.pct", "l2_hit_rate_pct"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_load_sectors"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global_load_requests"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_store_sectors"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global_store_requests"},
  };
  return metrics;
}

std::map<std::string, double> aggregate_ranges(const std::vector<RangeValues>& ranges) {
  std::map<std::string, double> sums, weighted, weights;
  for (const auto& r : ranges) {
    const auto d = r.find("gpu__time_duration.sum");
    const double duration_ns = d != r.end() ? d->second : 0;
    for (const auto& m : collected_metrics()) {
      const auto it = r.find(m.cupti);
      if (it == r.end() || !std::isfinite(it->second)) continue;
      const std::string key = m.key;
      if (key.size() > 4 && key.ends_with("_pct")) {
        // A kernel too short to have a duration still counts, with weight 1 ns.
        const double w = duration_ns > 0 ? duration_ns : 1;
        weighted[key] += it->second * w;
        weights[key] += w;
      } else {
        sums[key] += it->second;
      }
    }
  }
  std::map<std::string, double> out;
  for (const auto& [key, total] : sums) out[key] = total;
  for (const auto& [key, total] : weighted) out[key] = total / weights[key];
  if (out.count("duration_us")) out["duration_us"] /= 1e3;  // CUPTI reports nanoseconds
  auto ratio = [&](const char* num, const char* den, const char* key) {
    if (out.count(num) && out.count(den) && out[den] > 0) out[key] = out[num] / out[den];
  };
  ratio("global_load_sectors", "global_load_requests", "global_load_sectors_per_request");
  ratio("global_store_sectors", "global_store_requests", "global_store_sectors_per_request");
  if (!ranges.empty()) out["kernels"] = static_cast<double>(ranges.size());
  return out;
}

}  // namespace kb::judge
