// `kernelbot init` reading roles, scalars and sizes from the code: a non-const pointer the kernel
// only reads is an input, one it reads and writes inout, a written buffer named as scratch a
// workspace, a bool a scalar, an integer that bounds a loop or an index a size, a host pointer
// named as such; a parameter that is a size in one launcher of a file is a size in its sibling
// too. The result passes config check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/support/kernelbot_process.h"
#include "tests/support/toml_text.h"

namespace fs = std::filesystem;

namespace {

const char* kGuessSource = R"(#include <cuda_runtime.h>

__global__ void axpy_kernel(const float* x, float* y, float a, int total, bool accumulate) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  y[i] = accumulate ? y[i] + a * x[i] : a * x[i];
}

void launch_axpy(float* x, float* y, float a, int total, bool accumulate, int threads = 256) {
  axpy_kernel<<<(total + threads - 1) / threads, threads>>>(x, y, a, total, accumulate);
}

__global__ void reduce_kernel(const float* in, float* partial_sums, float* out, int elems, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) acc += i < elems ? in[i] : 0.f;
  if (threadIdx.x == 0) partial_sums[blockIdx.x] = acc;
  if (i == 0) out[0] = acc;
}

void launch_reduce(const float* in, float* partial_sums, float* out, int elems, int iters) {
  reduce_kernel<<<(elems + 255) / 256, 256>>>(in, partial_sums, out, elems, iters);
}

__global__ void copy_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

void launch_from_host(const float* h_in, float* d_out, int n) {
  float* d_in = nullptr;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
  copy_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  cudaFree(d_in);
}

__global__ void rownorm_kernel(const float* x, float* y, int N, int C) {
  int row = blockIdx.x;
  if (row >= N) return;
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[row * C + c] = x[row * C + c];
}

void launch_rownorm(const float* x, float* y, int N, int C) { rownorm_kernel<<<N, 256>>>(x, y, N, C); }

__global__ void rowscale_kernel(float* y, int N, int C) {
  int row = blockIdx.x;
  if (row >= N) return;
  y[row * C + threadIdx.x] *= 2.0f;
}

void launch_rowscale(float* y, int N, int C) { rowscale_kernel<<<N, C>>>(y, N, C); }
)";

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The [[kernel]] table for `launcher`, up to the next one.
std::string table_of(const std::string& config, const std::string& launcher) {
  return kb::testing::kernel_table_with(config, "launcher = \"" + launcher + "\"");
}

class InitGuesses : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_init_guesses_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "ops.cu") << kGuessSource;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(InitGuesses, RolesScalarsAndSizesComeFromTheCode) {
  auto r = kb::testing::run_kernelbot("init", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string config = text_of(dir_ / "kernelbot.toml");

  const std::string axpy = table_of(config, "launch_axpy");
  ASSERT_FALSE(axpy.empty()) << config;
  EXPECT_NE(axpy.find("name = \"x\"\n  role = \"input\""), std::string::npos) << axpy;
  EXPECT_NE(axpy.find("name = \"x\"\n  role = \"input\"   # read only: line 6 `y[i] = accumulate ? y[i] + a * x[i] : "
                      "a * x[i]`"),
            std::string::npos)
      << axpy;
  EXPECT_NE(axpy.find("name = \"y\"\n  role = \"inout\"   # read and written: line 6"), std::string::npos)
      << "y is read when accumulating\n"
      << axpy;
  EXPECT_NE(axpy.find("name = \"accumulate\"\n  role = \"scalar\"\n  dtype = \"uint8\"\n  value = 1"), std::string::npos)
      << axpy;
  EXPECT_NE(axpy.find("check: a bool flag, passed as uint8"), std::string::npos) << axpy;
  EXPECT_NE(axpy.find("name = \"total\"\n  role = \"size\""), std::string::npos) << axpy;
  EXPECT_NE(axpy.find("name = \"threads\"\n  role = \"scalar\"\n  dtype = \"int32\"\n  value = 256"), std::string::npos)
      << "a launch setting keeps its default\n"
      << axpy;

  const std::string reduce = table_of(config, "launch_reduce");
  ASSERT_FALSE(reduce.empty()) << config;
  EXPECT_NE(reduce.find("name = \"partial_sums\"\n  role = \"workspace\""), std::string::npos) << reduce;
  EXPECT_NE(reduce.find("check: workspace (lent and poisoned before each call, never compared)"), std::string::npos);
  EXPECT_NE(reduce.find("name = \"out\"\n  role = \"output\""), std::string::npos) << reduce;
  EXPECT_NE(reduce.find("name = \"iters\"\n  role = \"size\""), std::string::npos)
      << "a loop bound is a size, not an integer set to 3\n"
      << reduce;
  EXPECT_NE(reduce.find("check: a size: it bounds a loop or an index in reduce_kernel: iters"), std::string::npos)
      << reduce;
  EXPECT_EQ(reduce.find("value = 3"), std::string::npos) << reduce;

  // A host pointer: the table is written commented out, saying why.
  EXPECT_NE(config.find("# Not written: parameter 'h_in' is a host pointer (the source of cudaMemcpy(..., "
                        "cudaMemcpyHostToDevice) at line 33): kernelbot lends device buffers"),
            std::string::npos)
      << config;
  EXPECT_NE(config.find("# launcher = \"launch_from_host\""), std::string::npos);

  // C is a size of launch_rownorm, so in launch_rowscale (where it is also the block size) too.
  const std::string rowscale = table_of(config, "launch_rowscale");
  ASSERT_FALSE(rowscale.empty()) << config;
  EXPECT_NE(rowscale.find("name = \"C\"\n  role = \"size\""), std::string::npos) << rowscale;
  EXPECT_NE(rowscale.find("check: a size, as in a sibling launcher of this file"), std::string::npos) << rowscale;
  EXPECT_NE(rowscale.find("count = \"N*C\""), std::string::npos) << rowscale;

  // Every guess is noted, and the file passes its own check with only TODO counts left.
  auto check = kb::testing::run_kernelbot("config check", dir_);
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << config;
  EXPECT_NE(check.out.find("ok (4 kernels)"), std::string::npos) << check.out;
}
