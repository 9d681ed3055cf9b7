// On the device (label gpu): the wall-time budget and the repetition rule on a kernel that takes
// ~250 ms a call (a clock64 spin, as a slow GEMM would). `kernelbot search` with
// max_wall_time_s = 60 must end within 66 s with a winner or a clean "nothing faster", and the
// original's measurement (timed alone, with its counters) must take at most 10 s.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

// ~250 ms at the H200's 1.98 GHz SM clock: every thread spins 5e8 cycles, all blocks in one wave.
// The block size changes nothing, so the built-in tuner may find nothing faster: a clean result too.
const char* kSlowSource = R"(#include <cuda_runtime.h>

#ifndef SLOW_BLOCK
#define SLOW_BLOCK 64
#endif

__global__ void slow_scale(const float* x, float* y, int n, long long spin) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long start = clock64();
  while (clock64() - start < spin) {
  }
  if (i < n) y[i] = 2.0f * x[i];
}

void launch_slow_scale(const float* x, float* y, int n) {
  slow_scale<<<(n + SLOW_BLOCK - 1) / SLOW_BLOCK, SLOW_BLOCK>>>(x, y, n, 500000000LL);
}
)";

const char* kConfig = R"([search]
proposer = "builtin"
rounds = 5
max_wall_time_s = 60

[[kernel]]
name = "slow_scale"
source = "slow.cu"
launcher = "launch_slow_scale"
sizes = [{ n = 4096 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)";

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST(SlowKernelOnGpu, TheSearchHoldsItsWallTimeBudgetAndTheOriginalIsMeasuredQuickly) {
  const fs::path dir = fs::temp_directory_path() / ("kb_slow_budget_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  write(dir / "slow.cu", kSlowSource);
  write(dir / "kernelbot.toml", kConfig);

  const auto t0 = std::chrono::steady_clock::now();
  kb::testing::KernelbotRun run = kb::testing::run_kernelbot("--json search --no-archive --kernel slow_scale", dir);
  const double command_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << run.out << run.err;

  // The search itself (from measuring the original to the winner's counters) within 60 s + 10%.
  const double search_s = result["budget"]["wall_time_s"];
  EXPECT_LE(search_s, 66.0) << "stop: " << result["stop_reason"] << "\n" << run.err;
  std::cout << "search " << search_s << " s, the whole command " << command_s << " s (start-up and calibration "
            << "included), stop: " << result["stop_reason"] << "\n";

  // The original: ~250 ms a call, measured (timed alone, then its counters) in at most 10 s.
  const nlohmann::json* original = nullptr;
  for (const auto& c : result["tree"])
    if (c["id"] == "baseline") original = &c;
  ASSERT_NE(original, nullptr);
  const double median_us = (*original)["median_us"];
  EXPECT_GE(median_us, 100'000) << "the kernel is not slow on this GPU";
  const double measured_s = (*original)["eval"]["run_s"];
  EXPECT_LE(measured_s, 10.0) << (*original)["eval"]["phase_s"].dump() << "\n" << run.err;
  const auto& timing = (*original)["eval"]["timings"][0]["baseline"];
  EXPECT_GE(timing["samples"].get<int64_t>(), 5);   // enough for a median and its noise
  EXPECT_LE(timing["samples"].get<int64_t>(), 20);  // and not the configured 20..2000 of a short kernel
  EXPECT_TRUE(timing.contains("noise"));
  std::cout << "original: " << median_us / 1000 << " ms a call, measured in " << measured_s << " s over "
            << timing["samples"] << " samples (noise " << timing["noise"].get<double>() * 100 << "%)\n";

  // A winner, or a clean "nothing faster": every candidate in the tree has its verdict.
  for (const auto& c : result["tree"]) EXPECT_NE(c["verdict"], "pending") << c["id"];
  const std::string best = result["best_id"];
  if (!best.empty())
    for (const auto& c : result["tree"])
      if (c["id"] == best) EXPECT_EQ(c["verdict"], "accepted");
  if (!HasFailure()) fs::remove_all(dir);
}
