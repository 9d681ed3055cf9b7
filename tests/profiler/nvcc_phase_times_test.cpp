#include "profiler/evaluate/compile/nvcc_phase_times.h"

#include <gtest/gtest.h>

namespace kb::profiler {
namespace {

// What nvcc 13 wrote for `nvcc -shared ... --time t.csv -o a.so a.cu` (temporary names shortened),
// twice: nvcc appends a block a run, the header included.
const char* kRun = R"(source file name , phase name , phase input files , phase output file , arch , tool, metric , unit
a.cu , gcc (preprocessing 4) , a.cu  , /tmp/x-5_a.cpp4.ii ,  , nvcc , 375.5900 , ms
a.cu , cudafe++ , /tmp/x-5_a.cpp4.ii  , /tmp/x-6_a.cudafe1.cpp , compute_90 , nvcc , 1564.3390 , ms
a.cu , gcc (preprocessing 1) , a.cu  , /tmp/x-9_a.cpp1.ii , compute_90 , nvcc , 480.0650 , ms
a.cu , cicc ,  /tmp/x-9_a.cpp1.ii  , /tmp/x-6_a.ptx , compute_90 , nvcc , 1367.5410 , ms
a.cu , ptxas , /tmp/x-6_a.ptx  , /tmp/x-10_a.sm_90.cubin , sm_90 , nvcc , 87.8780 , ms
a.cu , fatbinary , /tmp/x-10_a.sm_90.cubin /tmp/x-6_a.ptx  , /tmp/x-3_a.fatbin ,  , nvcc , 7.8610 , ms
a.cu , gcc (compiling) ,   , /tmp/x-11_a.o , compute_90 , nvcc , 1248.3080 , ms
a.cu  , nvlink , /tmp/x-11_a.o  , /tmp/x-12_a_dlink.sm_90.cubin , sm_90 , nvcc , 31.6850 , ms
a.cu  , gcc (linking) , /tmp/x-13_a_dlink.o /tmp/x-11_a.o  , a.so ,  , nvcc , 352.6810 , ms
 , nvcc (driver) ,  , a.so ,  , nvcc , 0.9771 , ms
)";

TEST(NvccPhaseTimes, EachPhaseIsSummedUnderTheToolThatRanIt) {
  const auto s = nvcc_phase_seconds(kRun);
  EXPECT_NEAR(s.at("host preprocessing"), (375.59 + 480.065) / 1000, 1e-9);
  EXPECT_NEAR(s.at("cudafe++ (host/device split)"), 1.564339, 1e-9);
  EXPECT_NEAR(s.at("cicc (device front end)"), 1.367541, 1e-9);
  EXPECT_NEAR(s.at("ptxas"), 0.087878, 1e-9);
  EXPECT_NEAR(s.at("fatbinary"), 0.007861, 1e-9);
  EXPECT_NEAR(s.at("host compiler"), 1.248308, 1e-9);
  EXPECT_NEAR(s.at("nvlink"), 0.031685, 1e-9);
  EXPECT_NEAR(s.at("host link"), 0.352681, 1e-9);
  EXPECT_NEAR(s.at("nvcc driver"), 0.0009771, 1e-12);
  EXPECT_EQ(s.size(), 9u);
}

TEST(NvccPhaseTimes, RunsAppendedToOneReportAddUp) {
  const auto once = nvcc_phase_seconds(kRun);
  const auto twice = nvcc_phase_seconds(std::string(kRun) + kRun);
  for (const auto& [phase, s] : once) EXPECT_NEAR(twice.at(phase), 2 * s, 1e-9) << phase;
}

TEST(NvccPhaseTimes, MalformedLinesAndOtherUnitsAreSkipped) {
  const auto s = nvcc_phase_seconds("garbage\n"
                                    "a.cu , ptxas , in , out , sm_90 , nvcc , not-a-number , ms\n"
                                    "a.cu , ptxas , in , out , sm_90 , nvcc , 5 , s\n"
                                    "a.cu , ptxas , in , out , sm_90 , nvcc , -3 , ms\n"
                                    "a.cu , a phase a later nvcc adds , in , out , sm_90 , nvcc , 12.5 , ms\r\n");
  EXPECT_EQ(s.count("ptxas"), 0u);
  EXPECT_NEAR(s.at("a phase a later nvcc adds"), 0.0125, 1e-12);
  EXPECT_TRUE(nvcc_phase_seconds("").empty());
}

}  // namespace
}  // namespace kb::profiler
