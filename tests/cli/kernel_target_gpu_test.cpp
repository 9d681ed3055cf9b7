// Fixture (a) on a GPU: the kernel target whose launch site uses 32 threads per block is profiled,
// and the builtin tuner finds a verified win by tuning that launch's block, which the dry-run PR
// edits at the launch site (ops.cu:28) and re-verifies. Label gpu: the lead runs it on the device.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

const char* kConfig = R"toml([search]
proposer = "builtin"
max_candidates = 12
rounds = 3

[[kernel]]
name = "bias_gelu"
source = "ops.cu"
global = "bias_gelu_kernel"
grid = "ceil_div(n, block_x)"
block = "32"
sizes = [{ n = 16777216, cols = 1024 }, { n = 1000448, cols = 1024 }]
  [[kernel.arg]]
  name = "out"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "in"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "bias"
  role = "input"
  dtype = "float32"
  count = "cols"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int64"
  value = "n"
  [[kernel.arg]]
  name = "cols"
  role = "size"
  dtype = "int64"
  value = "cols"
)toml";

TEST(KernelTargetGpu, ProfileAndATunedLaunchSiteWin) {
  fs::path dir = fs::temp_directory_path() / ("kb_ktarget_gpu_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/extension_style", dir, fs::copy_options::recursive);
  std::ofstream(dir / "kernelbot.toml") << kConfig;
  auto profile = kb::testing::run_kernelbot("profile --kernel bias_gelu", dir);
  ASSERT_EQ(profile.exit_code, 0) << profile.out << profile.err;
  EXPECT_NE(profile.out.find("bias_gelu"), std::string::npos) << profile.out;
  auto run = kb::testing::run_kernelbot("run --dry-run --kernel bias_gelu", dir);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  std::printf("%s\n", run.out.c_str());  // the run's table: the win, for the notes
  const fs::path prs = dir / ".kernelbot/prs";
  ASSERT_TRUE(fs::exists(prs)) << "no dry-run PR:\n" << run.out << run.err;
  std::string patch;
  for (const auto& e : fs::recursive_directory_iterator(prs))
    if (e.path().filename() == "change.patch") {
      std::ifstream in(e.path());
      std::stringstream s;
      s << in.rdbuf();
      patch = s.str();
    }
  EXPECT_NE(patch.find("-  bias_gelu_kernel<<<(in.numel + 31) / 32, 32, 0, in.stream>>>"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("KB_BLOCK_X"), std::string::npos) << "an advisory probe is never published:\n" << patch;
  fs::remove_all(dir);
}

}  // namespace
