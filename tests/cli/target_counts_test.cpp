// One tree, one count: discover, init (whatever --kernel or --file chooses) and config check
// report the same number of launcher targets and kernel targets, and `init --kernel` matches a
// kernel target by its __global__'s name as it matches a launcher by the launcher's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

// Two launcher targets (launch_scale, launch_shift), a wrapper that launches only through them
// (no target of its own), and main() launching relu_kernel inline (a kernel target).
const char* kOps = R"(#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

__global__ void shift_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void launch_scale(float* x, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, n); }
void launch_shift(float* x, int n) { shift_kernel<<<(n + 255) / 256, 256>>>(x, n); }
void scale_then_shift(float* x, int n) {
  launch_scale(x, n);
  launch_shift(x, n);
}
)";

const char* kApp = R"(#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

int main() {
  const int n = 1 << 20;
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  relu_kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  cudaDeviceSynchronize();
  return 0;
}
)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class TargetCounts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_target_counts_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    std::ofstream(dir_ / "src/ops.cu") << kOps;
    std::ofstream(dir_ / "src/app.cu") << kApp;
  }
  void TearDown() override { fs::remove_all(dir_); }
  kb::testing::KernelbotRun kernelbot(const std::string& args) { return kb::testing::run_kernelbot(args, dir_); }
  fs::path dir_;
};

const char* kCounts = "2 launcher(s) and 1 kernel target(s)";

}  // namespace

TEST_F(TargetCounts, DiscoverInitAndConfigCheckCountTheSameWhateverInitChooses) {
  auto discovered = kernelbot("discover");
  ASSERT_EQ(discovered.exit_code, 0) << discovered.err;
  EXPECT_NE(discovered.out.find(std::string("Targets `init` writes a table for: ") + kCounts), std::string::npos)
      << discovered.out;
  auto discovered_json = kernelbot("--json discover");
  ASSERT_EQ(discovered_json.exit_code, 0) << discovered_json.err;
  const auto targets = nlohmann::json::parse(discovered_json.out)["targets"];
  EXPECT_EQ(targets["launchers"], 2) << discovered_json.out;
  EXPECT_EQ(targets["kernel_targets"], 1) << discovered_json.out;

  // Every choice reports the tree's count, not the count of what it chose.
  for (const char* choice :
       {"", " --kernel scale", " --kernel relu_kernel", " --file src/app.cu", " --kernel '*shift*'"}) {
    auto init = kernelbot(std::string("init --force") + choice);
    ASSERT_EQ(init.exit_code, 0) << choice << "\n" << init.err;
    EXPECT_NE(init.err.find(std::string("of the ") + kCounts + " found"), std::string::npos) << choice << "\n"
                                                                                             << init.err;
    auto json = kernelbot(std::string("--json init --stdout") + choice);
    ASSERT_EQ(json.exit_code, 0) << choice << "\n" << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out)["targets"], targets) << choice << "\n" << json.out;
  }

  auto init = kernelbot("init --force");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  auto check = kernelbot("config check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(std::string("the tree has ") + kCounts), std::string::npos) << check.out;
  auto check_json = kernelbot("--json config check");
  ASSERT_EQ(check_json.exit_code, 0) << check_json.err;
  EXPECT_EQ(nlohmann::json::parse(check_json.out)["targets"], targets) << check_json.out;
}

TEST_F(TargetCounts, InitKernelMatchesAKernelTargetByItsGlobalsName) {
  auto init = kernelbot("init --kernel relu_kernel");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string config = slurp(dir_ / "kernelbot.toml");
  EXPECT_NE(config.find("global = \"relu_kernel\""), std::string::npos) << config;
  EXPECT_EQ(config.find("launcher = \"launch_scale\""), std::string::npos) << config;
  EXPECT_EQ(config.find("launcher = \"launch_shift\""), std::string::npos) << config;

  auto globbed = kernelbot("init --force --kernel 'relu*'");
  ASSERT_EQ(globbed.exit_code, 0) << globbed.err;
  EXPECT_NE(slurp(dir_ / "kernelbot.toml").find("global = \"relu_kernel\""), std::string::npos);

  // A launcher's name still chooses the launcher, and only it.
  auto launcher = kernelbot("init --force --kernel launch_shift");
  ASSERT_EQ(launcher.exit_code, 0) << launcher.err;
  const std::string only = slurp(dir_ / "kernelbot.toml");
  EXPECT_NE(only.find("launcher = \"launch_shift\""), std::string::npos) << only;
  EXPECT_EQ(only.find("global = \"relu_kernel\""), std::string::npos) << only;

  auto none = kernelbot("init --force --kernel nothing_like_it");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find(std::string("matched none of the ") + kCounts + " found"), std::string::npos) << none.err;
}
