// Compile bombs (compile_bombs/*.cu) with the real nvcc: sources whose front end (cudafe++, the
// host compiler's preprocessor and parser, cicc) would run for minutes or hours. Each ends as the
// candidate's compile error within its limit plus the kill's few seconds, in either sandbox, and
// none of the processes nvcc started runs afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/file_io.h"
#include "config/config_loader.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "tests/support/running_processes.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

const fs::path kBombs = fs::path(KB_SOURCE_DIR) / "tests" / "profiler" / "compile_bombs";
constexpr double kLimit = 3;  // [verify] compile_timeout_s of these tests
// What the end may take beyond the limit: SIGTERM's grace, the tree's kill, the pipes' drain.
constexpr double kSlack = 6;

class CompileBoundTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-bomb-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    std::ofstream(root_ / "src" / "scale.cu") << R"(__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
)";
    config_ = config::load_config_text(R"(
[[kernel]]
name = "scale"
source = "src/scale.cu"
launcher = "ops::launch_scale"
sizes = [{ n = 1000 }]
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
)",
                                       (root_ / "kernelbot.toml").string(), root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  CompilerOptions options(SandboxKind sandbox, bool policy) const {
    CompilerOptions o;
    o.work_dir = root_ / ".kernelbot" / "work";
    o.timeout_s = kLimit;
    o.max_memory_mb = 1024;
    o.sandbox = sandbox;
    o.hidden = repository_secrets(root_);
    o.source_policy = policy;
    return o;
  }

  // Compiles the bomb and checks how it ended: the candidate's compile error for one of its
  // limits, in time, with nothing of nvcc's left running (every process of the compile has this
  // test's directory in its arguments: nvcc, cudafe++, cicc, gcc's cc1plus, the shells between).
  void expect_bounded(const std::string& bomb, SandboxKind sandbox, bool policy) {
    SCOPED_TRACE(bomb + " in the " + to_string(sandbox) + " sandbox");
    VariantCompiler compiler(config_, options(sandbox, policy));
    const Variant v{read_text_file(kBombs / bomb), {}, {}, bomb};
    const auto start = std::chrono::steady_clock::now();
    const CompiledVariant r = compiler.compile(config_.kernels[0], v);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.machine_failure) << r.log.substr(0, 400);
    const bool limit = r.failure_reason.find("time limit") != std::string::npos ||
                       r.failure_reason.find("memory limit") != std::string::npos;
    EXPECT_TRUE(limit) << "not stopped by a limit: " << r.failure_reason << "\n" << r.log.substr(0, 600);
    EXPECT_LT(took, kLimit + kSlack);
    EXPECT_EQ(test::processes_left_with(root_.string()), 0) << "a process of the compile survived it";
  }

  fs::path root_;
  config::Config config_;
};

// The bombs a search's candidate may write: the source policy has nothing to refuse in them.
TEST_F(CompileBoundTest, FrontEndBombsEndAtTheCompileLimit) {
  for (const char* bomb : {"constexpr_loop.cu", "template_blowup.cu", "macro_explosion.cu"})
    expect_bounded(bomb, SandboxKind::namespaces, true);
  expect_bounded("constexpr_loop.cu", SandboxKind::process, true);
}

// Includes that never end: refused by the policy before nvcc runs, and bounded without it (a
// file handed to `eval --candidate` is not held to the policy).
TEST_F(CompileBoundTest, IncludeBombsAreRefusedOrEndAtTheCompileLimit) {
  for (const char* bomb : {"include_itself_twice.cu", "include_dev_zero.cu"}) {
    VariantCompiler compiler(config_, options(SandboxKind::namespaces, true));
    const CompiledVariant refused = compiler.compile(config_.kernels[0], {read_text_file(kBombs / bomb), {}, {}, bomb});
    EXPECT_EQ(refused.failure_reason.find("refused by the candidate source policy"), 0u) << refused.failure_reason;
    EXPECT_EQ(refused.compile_s, 0) << "nvcc never ran";
    expect_bounded(bomb, SandboxKind::namespaces, false);
  }
}

}  // namespace
}  // namespace kb::profiler
