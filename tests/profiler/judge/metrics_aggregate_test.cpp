#include "profiler/judge/tracing/metrics_aggregate.h"

#include <gtest/gtest.h>

namespace kb::judge {
namespace {

TEST(MetricsAggregate, SumsCountsAndWeightsPercentagesByDuration) {
  RangeValues a = {{"gpu__time_duration.sum", 3000},  // 3 us
                   {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 90},
                   {"dram__bytes_read.sum", 1e6},
                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 400},
                   {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100}};
  RangeValues b = {{"gpu__time_duration.sum", 1000},  // 1 us
                   {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 10},
                   {"dram__bytes_read.sum", 5e5},
                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 100},
                   {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100}};
  const auto v = aggregate_ranges({a, b});
  EXPECT_DOUBLE_EQ(v.at("duration_us"), 4.0);
  EXPECT_DOUBLE_EQ(v.at("dram_throughput_pct"), 70.0);  // (90*3 + 10*1) / 4
  EXPECT_DOUBLE_EQ(v.at("dram_bytes_read"), 1.5e6);
  EXPECT_DOUBLE_EQ(v.at("global_load_sectors_per_request"), 2.5);  // 500 / 200
  EXPECT_DOUBLE_EQ(v.at("kernels"), 2);
  EXPECT_EQ(v.count("global_store_sectors_per_request"), 0u);  // not measured: not invented
}

TEST(MetricsAggregate, EveryCollectedMetricHasAReadableKey) {
  bool has_occupancy = false;
  for (const auto& m : collected_metrics()) {
    EXPECT_NE(std::string(m.cupti).find('.'), std::string::npos) << m.cupti;
    has_occupancy = has_occupancy || std::string(m.key) == "achieved_occupancy_pct";
  }
  EXPECT_TRUE(has_occupancy);
  EXPECT_TRUE(aggregate_ranges({}).empty());
}

}  // namespace
}  // namespace kb::judge
