// `config check` reports a launch or count expression that names what nothing binds at the
// config's own line, with the field, the kernel and the source searched (exit 2), instead of
// `check --compile` failing later inside the generated entry shim.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

const char* kGemm = R"(#include <cuda_runtime.h>
#define TILE 16

template <int TILE_X>
__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * TILE_X + threadIdx.y, col = blockIdx.x * TILE_X + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
)";

// Line 9 holds the grid, line 10 the block, line 25 C's count.
std::string config(const std::string& grid, const std::string& block, const std::string& c_count) {
  return R"([[kernel]]
name = "gemm"
source = "src/gemm.cu"
global = "gemm"
template_args = "16"
sizes = [{ M = 256, N = 256, K = 256 }]


grid = ")" +
         grid + R"("
block = ")" +
         block + R"("
  [[kernel.arg]]
  name = "A"
  role = "input"
  dtype = "float32"
  count = "M*K"
  [[kernel.arg]]
  name = "B"
  role = "input"
  dtype = "float32"
  count = "K*N"
  [[kernel.arg]]
  name = "C"
  role = "output"
  dtype = "float32"
  count = ")" +
         c_count + R"("
  [[kernel.arg]]
  name = "M"
  role = "size"
  dtype = "int32"
  value = "M"
  [[kernel.arg]]
  name = "N"
  role = "size"
  dtype = "int32"
  value = "N"
  [[kernel.arg]]
  name = "K"
  role = "size"
  dtype = "int32"
  value = "K"
)";
}

class ConfigLines : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_config_lines_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    std::ofstream(dir_ / "src/gemm.cu") << kGemm;
  }
  void TearDown() override { fs::remove_all(dir_); }
  kb::testing::KernelbotRun check(const std::string& text) {
    std::ofstream(dir_ / "kernelbot.toml") << text;
    return kb::testing::run_kernelbot("config check", dir_);
  }
  fs::path dir_;
};

}  // namespace

TEST_F(ConfigLines, ATemplateParameterInTheGridIsAnErrorAtTheGridsLine) {
  auto r = check(config("ceil_div(N, TILE_X), ceil_div(M, TILE_X)", "16, 16", "M*N"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:9:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel[0].grid: kernel \"gemm\" grid: \"ceil_div(N, TILE_X), ceil_div(M, TILE_X)\" names "
                       "TILE_X, which is not an argument, a size or a macro of src/gemm.cu"),
            std::string::npos)
      << r.err;
}

TEST_F(ConfigLines, AMacroOfTheSourceTheArgumentsAndBlockXPass) {
  auto r = check(config("ceil_div(N, block_x), ceil_div(M, TILE)", "TILE, TILE", "M*N"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(ConfigLines, ALocalOfTheBlockIsAnErrorAtTheBlocksLine) {
  auto r = check(config("ceil_div(N, block_x), ceil_div(M, block_y)", "threads, 1", "M*N"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:10:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel[0].block: kernel \"gemm\" block: \"threads, 1\" names threads"), std::string::npos)
      << r.err;
}

TEST_F(ConfigLines, ACountNamingNoSizeIsAnErrorAtTheCountsLine) {
  auto r = check(config("ceil_div(N, block_x), ceil_div(M, block_y)", "16, 16", "M*LDC"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:25:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel[0].arg[2].count: \"M*LDC\" names LDC, which no size set defines (the sizes: K, M, N)"),
            std::string::npos)
      << r.err;
}
