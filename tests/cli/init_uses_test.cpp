// `kernelbot init` reading how the code uses its buffers and writes its launches: a GEMM's C that
// the kernel reads (`beta * C`) and writes is inout, non-const pointers only read are inputs, a
// tiled kernel that advances its pointers gets the counts of its sibling launcher, a templated 2-D
// launch from main() is written with its template arguments, dim3 block and grid, and a launch
// through a function pointer gets a table per kernel it can hold. Each fixture's tables pass
// config check with at most one hand edit; config check warns about an output read first.
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

const char* kGemm = R"(#include <cuda_runtime.h>

__global__ void sgemm_naive(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

void run_sgemm_naive(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  sgemm_naive<<<grid, block>>>(M, N, K, alpha, A, B, beta, C);
}

template <int BS>
__global__ void sgemm_tiled(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C) {
  __shared__ float As[BS * BS], Bs[BS * BS];
  const int tr = threadIdx.x / BS, tc = threadIdx.x % BS;
  A += blockIdx.y * BS * K;
  B += blockIdx.x * BS;
  C += blockIdx.y * BS * N + blockIdx.x * BS;
  float acc = 0.0f;
  for (int bk = 0; bk < K; bk += BS) {
    As[tr * BS + tc] = A[tr * K + tc];
    Bs[tr * BS + tc] = B[tr * N + tc];
    __syncthreads();
    A += BS;
    B += BS * N;
    for (int d = 0; d < BS; ++d) acc += As[tr * BS + d] * Bs[d * BS + tc];
    __syncthreads();
  }
  float* out = C + tr * N;
  out[tc] = alpha * acc + beta * out[tc];
}

void run_sgemm_tiled(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C) {
  dim3 grid(N / 32, M / 32);
  sgemm_tiled<32><<<grid, 32 * 32>>>(M, N, K, alpha, A, B, beta, C);
}
)";

const char* kOnlyRead = R"(#include <cuda_runtime.h>

__device__ float load(float* p, int i) { return p[i]; }

__global__ void mix_kernel(float* x, float* w, float* out, float* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = load(x, i) * w[i];
  out[i] = v;
  atomicAdd(&hist[i % 16], v);
}

void launch_mix(float* x, float* w, float* out, float* hist, int n) {
  mix_kernel<<<(n + 255) / 256, 256>>>(x, w, out, hist, n);
}
)";

const char* kTemplated2d = R"(#include <cuda_runtime.h>

template <int TILE>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

int main() {
  const int rows = 4096, cols = 2048;
  float *d_in, *d_out;
  cudaMalloc(&d_in, rows * cols * sizeof(float));
  cudaMalloc(&d_out, rows * cols * sizeof(float));
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<16><<<grid, block>>>(d_in, d_out, rows, cols);
  transpose<16><<<grid, block>>>(d_out, d_in, cols, rows);
  dim3 wide(32, 32), wide_grid((cols + 31) / 32, (rows + 31) / 32);
  if (rows > 8192) transpose<32><<<wide_grid, wide>>>(d_in, d_out, rows, cols);
  cudaDeviceSynchronize();
  return 0;
}
)";

const char* kFunctionPointer = R"(#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void leaky_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

int main(int argc, char** argv) {
  const int n = 1 << 20;
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  void (*kernel)(const float*, float*, int) = nullptr;
  switch (argc) {
    case 1: kernel = relu_kernel; break;
    default: kernel = leaky_kernel; break;
  }
  kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  cudaDeviceSynchronize();
  return 0;
}
)";

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using kb::testing::kernel_table_with;

class InitUses : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_init_uses_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string init_with(const char* source) {
    std::ofstream(dir_ / "ops.cu") << source;
    auto r = kb::testing::run_kernelbot("init", dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return text_of(dir_ / "kernelbot.toml");
  }
  // config check after the hand edits: none of the written tables fails, nothing is left TODO.
  void expect_checks(const std::string& config, int kernels) {
    std::ofstream(dir_ / "kernelbot.toml") << config;
    auto check = kb::testing::run_kernelbot("config check", dir_);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << config;
    const std::string ok = "ok (" + std::to_string(kernels) + (kernels == 1 ? " kernel)" : " kernels)");
    EXPECT_NE(check.out.find(ok), std::string::npos) << check.out;
    EXPECT_EQ(check.out.find("TODO"), std::string::npos) << check.out;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(InitUses, GemmReadsBetaTimesCSoCIsInoutAndNonConstOperandsAreInputs) {
  const std::string config = init_with(kGemm);
  const std::string naive = kernel_table_with(config, "launcher = \"run_sgemm_naive\"");
  ASSERT_FALSE(naive.empty()) << config;
  EXPECT_NE(naive.find("name = \"C\"\n  role = \"inout\"   # read and written: line 9 `C[row * N + col] = alpha * "
                       "acc + beta * C[row * N + col]`"),
            std::string::npos)
      << naive;
  EXPECT_NE(naive.find("name = \"A\"\n  role = \"input\"   # read only: line 8"), std::string::npos) << naive;
  EXPECT_NE(naive.find("name = \"B\"\n  role = \"input\"   # read only: line 8"), std::string::npos) << naive;
  EXPECT_NE(naive.find("count = \"M*K\""), std::string::npos) << naive;
  EXPECT_NE(naive.find("count = \"N*K\""), std::string::npos) << naive;
  EXPECT_NE(naive.find("count = \"M*N\""), std::string::npos) << naive;
  EXPECT_EQ(naive.find("role = \"output\""), std::string::npos) << naive;

  // The tiled kernel advances its pointers by tiles: its counts are the sibling's, and its roles
  // follow the alias `out = C + tr * N`.
  const std::string tiled = kernel_table_with(config, "launcher = \"run_sgemm_tiled\"");
  ASSERT_FALSE(tiled.empty()) << config;
  EXPECT_NE(tiled.find("name = \"C\"\n  role = \"inout\"   # read and written: line 37 `out[tc] = alpha * acc + "
                       "beta * out[tc]`"),
            std::string::npos)
      << tiled;
  EXPECT_NE(tiled.find("name = \"A\"\n  role = \"input\""), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("count = \"M*K\""), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("check: count as for A of run_sgemm_naive in this file"), std::string::npos) << tiled;
  EXPECT_EQ(config.find("count = \"TODO\""), std::string::npos) << "no TODO count left:\n" << config;
  expect_checks(config, 2);  // no hand edit
}

TEST_F(InitUses, NonConstPointersOnlyReadAreInputsThroughHelpersAndAtomicsAreInout) {
  const std::string config = init_with(kOnlyRead);
  const std::string mix = kernel_table_with(config, "launcher = \"launch_mix\"");
  ASSERT_FALSE(mix.empty()) << config;
  EXPECT_NE(mix.find("name = \"x\"\n  role = \"input\"   # read only: line 3 `__device__ float load(float* p, int "
                     "i) { return p[i]; }`"),
            std::string::npos)
      << mix;
  EXPECT_NE(mix.find("name = \"w\"\n  role = \"input\"   # read only: line 8"), std::string::npos) << mix;
  EXPECT_NE(mix.find("name = \"out\"\n  role = \"output\"   # written only: line 9 `out[i] = v`"), std::string::npos)
      << mix;
  EXPECT_NE(mix.find("name = \"hist\"\n  role = \"inout\"   # read and written: line 10 `atomicAdd(&hist[i % 16], v)`"),
            std::string::npos)
      << mix;
  // At most one hand edit: a count the indexing did not tell.
  int edits = 0;
  std::string edited = config;
  for (size_t at = edited.find("count = \"TODO\""); at != std::string::npos;
       at = edited.find("count = \"TODO\""), ++edits)
    edited.replace(at, 14, "count = \"16\"");
  EXPECT_LE(edits, 1) << config;
  expect_checks(edited, 1);
}

TEST_F(InitUses, ATemplated2dLaunchIsWrittenAsTheCodeWritesIt) {
  const std::string config = init_with(kTemplated2d);
  const std::string t = kernel_table_with(config, "global = \"transpose\"");
  ASSERT_FALSE(t.empty()) << config;
  EXPECT_NE(t.find("template_args = \"16\"   # as the code instantiates it (template <int TILE>); check: also "
                   "launched with <32>"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("block = \"16, 16\""), std::string::npos) << t;
  EXPECT_NE(t.find("grid = \"ceil_div(cols, block_x), ceil_div(rows, block_y)\""), std::string::npos) << t;
  EXPECT_NE(t.find("name = \"out\"\n  role = \"output\"   # written only: line 7"), std::string::npos) << t;
  EXPECT_NE(t.find("name = \"in\"\n  role = \"input\"   # read only: line 7"), std::string::npos) << t;
  EXPECT_NE(t.find("count = \"rows*cols\""), std::string::npos) << t;
  expect_checks(config, 1);  // no hand edit
}

TEST_F(InitUses, AFunctionPointerLaunchGetsATablePerKernelItCanHold) {
  std::ofstream(dir_ / "ops.cu") << kFunctionPointer;
  auto discovered = kb::testing::run_kernelbot("discover", dir_);
  ASSERT_EQ(discovered.exit_code, 0) << discovered.err;
  EXPECT_NE(discovered.out.find("relu_kernel"), std::string::npos) << discovered.out;
  EXPECT_NE(discovered.out.find("leaky_kernel"), std::string::npos) << discovered.out;
  EXPECT_EQ(discovered.out.find(": kernel launched by"), std::string::npos) << "the variable is no kernel\n"
                                                                            << discovered.out;
  EXPECT_EQ(discovered.out.find(" kernel<<<"), std::string::npos) << discovered.out;

  const std::string config = init_with(kFunctionPointer);
  for (const char* kernel : {"relu_kernel", "leaky_kernel"}) {
    const std::string t = kernel_table_with(config, std::string("global = \"") + kernel + "\"");
    ASSERT_FALSE(t.empty()) << kernel << "\n" << config;
    EXPECT_NE(t.find("grid = \"ceil_div(n, block_x)\""), std::string::npos) << t;
    EXPECT_NE(t.find("block = \"256\""), std::string::npos) << t;
    EXPECT_NE(t.find("name = \"y\"\n  role = \"output\"   # written only"), std::string::npos) << t;
  }
  expect_checks(config, 2);  // no hand edit
}

TEST_F(InitUses, ConfigCheckWarnsAboutAnOutputTheKernelReadsFirst) {
  std::string config = init_with(kGemm);
  const size_t tiled = config.find("launcher = \"run_sgemm_tiled\"");
  ASSERT_NE(tiled, std::string::npos) << config;
  const size_t c = config.find("name = \"C\"\n  role = \"inout\"", tiled);
  ASSERT_NE(c, std::string::npos) << config;
  config.replace(config.find("inout", c), 5, "output");
  std::ofstream(dir_ / "kernelbot.toml") << config;
  auto check = kb::testing::run_kernelbot("config check", dir_);
  const std::string all = check.out + check.err;
  EXPECT_NE(all.find("kernel[1].arg[7].role: the kernel reads 'C' before it writes it (line 37 `out[tc] = alpha * "
                     "acc + beta * out[tc]`)"),
            std::string::npos)
      << all;
}

TEST_F(InitUses, ConfigCheckWarnsAboutAKernelTargetsOutputReadFirst) {
  std::string config = init_with(R"(#include <cuda_runtime.h>
__global__ void acc_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
int main() {
  const int n = 1 << 20;
  float *d_x, *d_y;
  acc_kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
}
)");
  const size_t y = config.find(
      "name = \"y\"\n  role = \"inout\"   # read and written: line 4 `if (i < n) y[i] += x[i]`");
  ASSERT_NE(y, std::string::npos) << config;
  config.replace(config.find("inout", y), 5, "output");
  std::ofstream(dir_ / "kernelbot.toml") << config;
  auto check = kb::testing::run_kernelbot("config check", dir_);
  EXPECT_EQ(check.exit_code, 0) << "a warning, not an error\n" << check.err;
  EXPECT_NE((check.out + check.err).find("warning: kernel[0].arg[1].role: the kernel reads 'y' before it writes it"),
            std::string::npos)
      << check.out << check.err;
}
