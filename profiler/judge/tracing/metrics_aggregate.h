// Which hardware metrics the harness collects, under which readable keys, and how the kernels of
// one launcher call add up to one set of values. Host-only (no CUPTI), so it is tested on a CPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kb::judge {

// A CUPTI metric name and the readable key it is reported under.
struct MetricName {
  const char* cupti;
  const char* key;
};
const std::vector<MetricName>& collected_metrics();

// Metric values of one kernel (one range), keyed by CUPTI name.
using RangeValues = std::map<std::string, double>;

// Sums durations, bytes, sectors and requests over the kernels of one call; percentages are
// averaged weighted by each kernel's duration; sectors per request come from the summed
// counts. Keys are the readable ones ("duration_us", "dram_throughput_pct", ...), plus "kernels".
std::map<std::string, double> aggregate_ranges(const std::vector<RangeValues>& ranges);

}  // namespace kb::judge
