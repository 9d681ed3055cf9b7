// ptxas -v reports as nvcc 13 prints them (recorded from real compiles).
#include "profiler/evaluate/compile/ptxas_report.h"

#include <gtest/gtest.h>

#include <string>

namespace kb::profiler {
namespace {

const char* kTwoKernels = R"(ptxas info    : 40 bytes gmem
ptxas info    : Compiling entry function '_ZN2ns1bILi64EEEvPf' for 'sm_90'
ptxas info    : Function properties for _ZN2ns1bILi64EEEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 134 registers, used 0 barriers
ptxas info    : Compile time = 19.336 ms
ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'
ptxas info    : Function properties for _Z1aPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 2.858 ms
)";

const char* kSpills =
    R"(ptxas info    : Overriding maximum register limit 256 for '_ZN2ns1bILi64EEEvPf' with  32 of maxrregcount option
ptxas info    : 40 bytes gmem
ptxas info    : Function properties for _Z6helperPf
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_ZN2ns1bILi64EEEvPf' for 'sm_90'
ptxas info    : Function properties for _ZN2ns1bILi64EEEvPf
    408 bytes stack frame, 592 bytes spill stores, 592 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 408 bytes cumulative stack size
ptxas info    : Compile time = 30.178 ms
ptxas info    : Compiling entry function '_Z1aPf' for 'sm_80'
ptxas info    : Function properties for _Z1aPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 16 bytes lmem, 380 bytes cmem[0]
)";

TEST(PtxasReport, ReadsEveryEntryFunction) {
  auto f = parse_ptxas_report(kTwoKernels);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].mangled, "_ZN2ns1bILi64EEEvPf");
  EXPECT_EQ(f[0].name, "void ns::b<64>(float*)");
  EXPECT_EQ(f[0].arch, "sm_90");
  EXPECT_EQ(f[0].registers, 134);
  EXPECT_EQ(f[0].shared_bytes, 0);
  EXPECT_EQ(f[1].name, "a(float*)");
  EXPECT_EQ(f[1].registers, 10);
  EXPECT_EQ(f[1].barriers, 1);
  EXPECT_EQ(f[1].shared_bytes, 1024);
}

// A compile log echoes a candidate's source line in an error: one of 100 KB that looks like
// ptxas's own is skipped (a regex over it would overflow the stack), and the real lines are read.
TEST(PtxasReport, ALongSourceLineInTheLogIsNotRead) {
  const std::string run(100 * 1024, 'a');
  const std::string log = "variant.cu(3): error: Compiling entry function '" + run + "' for 'sm_90'\n" +
                          "variant.cu(4): error: Function properties for " + run + "\n" + kTwoKernels;
  EXPECT_EQ(parse_ptxas_report(log).size(), 2u);
}

TEST(PtxasReport, ReadsSpillsAndIgnoresDeviceFunctions) {
  auto f = parse_ptxas_report(kSpills);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].registers, 32);
  EXPECT_EQ(f[0].stack_frame_bytes, 408);
  EXPECT_EQ(f[0].spill_stores_bytes, 592);
  EXPECT_EQ(f[0].spill_loads_bytes, 592);
  EXPECT_EQ(f[0].local_bytes, 408);
  EXPECT_EQ(f[1].arch, "sm_80");
  EXPECT_EQ(f[1].local_bytes, 16);
  EXPECT_EQ(f[1].stack_frame_bytes, 0) << "the device function's 16-byte frame belongs to no kernel";
}

TEST(PtxasReport, SummaryIsTheHeaviestKernel) {
  KernelMetrics k = summarize_ptxas(parse_ptxas_report(kSpills));
  EXPECT_EQ(k.status, "ok");
  EXPECT_EQ(k.kernel_name, "void ns::b<64>(float*)");
  EXPECT_EQ(k.registers_per_thread, 32);
  EXPECT_EQ(k.spill_stores_bytes, 592);
  EXPECT_EQ(k.values.at("ptxas_kernels"), 2);

  KernelMetrics none = summarize_ptxas(parse_ptxas_report("nvcc error: something\n"));
  EXPECT_NE(none.status, "ok");
}

}  // namespace
}  // namespace kb::profiler
