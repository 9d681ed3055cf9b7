// Ranking a workload's kernels from the injection library's JSON, mapped back to examples/.
#include "profiler/workload/workload_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "config/config_loader.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

TEST(KernelBaseName, StripsReturnTypeParametersScopesAndTemplates) {
  EXPECT_EQ(kernel_base_name("saxpy_kernel(float const*, float*, float, int)", false), "saxpy_kernel");
  EXPECT_EQ(kernel_base_name("void ns::b<64>(float*)", false), "ns::b<64>");
  EXPECT_EQ(kernel_base_name("void ns::b<64>(float*)", true), "b");
  EXPECT_EQ(kernel_base_name("void cub::Reduce<cub::Policy<(int)256, std::pair<int, float> >, float>(float*)", true),
            "Reduce");
  EXPECT_EQ(kernel_base_name("plain_name", true), "plain_name");
}

class WorkloadRankingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    recording_ = read_workload_recording(fs::path(KB_SOURCE_DIR) /
                                         "tests/profiler/data/workload-profile-synthetic.json");
    scan_ = cuda_source::scan_tree(fs::path(KB_SOURCE_DIR) / "examples", {"build"});
    config_ = config::load_config(fs::path(KB_SOURCE_DIR) / "examples/kernelbot.toml");
  }
  WorkloadRecording recording_;
  cuda_source::ScanResult scan_;
  config::Config config_;
};

TEST_F(WorkloadRankingTest, RanksByTotalGpuTimeAndMapsToSources) {
  EXPECT_EQ(recording_.pid, 4242);
  EXPECT_EQ(recording_.groups.size(), 5u);
  WorkloadRanking r = rank_workload({recording_}, scan_, &config_);
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(r.total_calls, 66u);
  EXPECT_NEAR(r.total_kernel_ms, 45.53, 1e-9);

  const RankedKernel& top = r.kernels[0];
  EXPECT_EQ(top.rank, 1);
  EXPECT_EQ(top.name, "row_sum_kernel");
  EXPECT_EQ(top.calls, 21u);
  EXPECT_NEAR(top.total_ms, 30.8, 1e-9);
  EXPECT_NEAR(top.mean_us, 30800.0 / 21, 1e-6);
  EXPECT_NEAR(top.min_us, 800, 1e-9);
  EXPECT_NEAR(top.max_us, 1600, 1e-9);
  EXPECT_NEAR(top.share, 30.8 / 45.53, 1e-9);
  EXPECT_EQ(top.grid, "32768x1x1 (+1 more)");
  EXPECT_EQ(top.block, "256x1x1 (+1 more)");
  ASSERT_EQ(top.sources.size(), 1u);
  EXPECT_EQ(top.sources[0].rfind("src/reduction.cu:", 0), 0u) << top.sources[0];
  EXPECT_EQ(top.launchers, (std::vector<std::string>{"launch_row_sum"}));
  EXPECT_EQ(top.configured, (std::vector<std::string>{"row_sum"}));

  EXPECT_EQ(r.kernels[1].name, "transpose_kernel");
  EXPECT_EQ(r.kernels[1].grid, "512x512x1");
  EXPECT_EQ(r.kernels[1].block, "8x8x1");
  EXPECT_EQ(r.kernels[2].name, "saxpy_kernel");
  EXPECT_EQ(r.kernels[2].configured, (std::vector<std::string>{"saxpy"}));

  // A library kernel the repository does not define: ranked, with no source.
  const RankedKernel& lib = r.kernels[3];
  EXPECT_EQ(lib.name, "thrust::cuda_cub::core::_kernel_agent<int>");
  EXPECT_TRUE(lib.sources.empty());
  EXPECT_TRUE(lib.configured.empty());
}

TEST_F(WorkloadRankingTest, MergesProcessesAndWorksWithoutAConfig) {
  WorkloadRanking r = rank_workload({recording_, recording_}, scan_, nullptr);
  EXPECT_EQ(r.processes, 2u);
  EXPECT_EQ(r.kernels[0].calls, 42u);
  EXPECT_TRUE(r.kernels[0].configured.empty());
  EXPECT_FALSE(r.kernels[0].launchers.empty());
}

// Recorded by libkernelbot_inject.so on the H100 (2026-11-22): `kernelbot profile --
// ./demo_app`, 21 launches of each example kernel.
TEST_F(WorkloadRankingTest, RecordedDemoAppOnTheH100) {
  WorkloadRecording demo = read_workload_recording(fs::path(KB_SOURCE_DIR) /
                                                   "tests/profiler/data/workload-profile-demo_app-h100.json");
  EXPECT_EQ(demo.groups.size(), 4u);
  EXPECT_EQ(demo.dropped_records, 0u);
  WorkloadRanking r = rank_workload({demo}, scan_, &config_);
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(r.total_calls, 84u);
  EXPECT_NEAR(r.total_kernel_ms, (6642707.0 + 52391946 + 9207724 + 3336555) / 1e6, 1e-9);
  const std::vector<std::string> order = {"row_sum_kernel", "layernorm_kernel", "saxpy_kernel", "transpose_kernel"};
  const std::vector<std::string> configured = {"row_sum", "layernorm", "saxpy", "transpose"};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(r.kernels[i].name, order[i]);
    EXPECT_EQ(r.kernels[i].calls, 21u);
    EXPECT_EQ(r.kernels[i].configured, (std::vector<std::string>{configured[i]}));
    EXPECT_EQ(r.kernels[i].sources.size(), 1u);
  }
  EXPECT_NEAR(r.kernels[0].share, 52391946.0 / (6642707.0 + 52391946 + 9207724 + 3336555), 1e-12);
  EXPECT_NEAR(r.kernels[0].mean_us, 52391.946 / 21, 1e-6);
  EXPECT_EQ(r.kernels[2].grid, "524288x1x1");
  EXPECT_EQ(r.kernels[2].block, "32x1x1");
  EXPECT_EQ(r.kernels[3].grid, "512x512x1");
}

TEST(WorkloadRecording, BadFilesNameThemselves) {
  fs::path p = fs::temp_directory_path() / ("kb-bad-profile-" + std::to_string(getpid()) + ".json");
  std::ofstream(p) << R"({"pid": 1})";
  try {
    read_workload_recording(p);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos);
  }
  fs::remove(p);
  EXPECT_THROW(read_workload_recording(p), std::runtime_error);
}

}  // namespace
}  // namespace kb::profiler
