// `kernelbot init` writes what it knows instead of leaving it to a hint after a failed load: a
// kernel target whose file uses a function another file defines gets `extra_sources`, one whose
// kernel reads a __constant__ that main() sets gets a setup source stub (kb_setup(), TODO where a
// value is needed) that init never overwrites; and a tile that is both the template argument and
// the block (tests/fixtures/tied_tile) is written as the launch writes it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/kernelbot_process.h"
#include "tests/support/toml_text.h"

namespace fs = std::filesystem;

namespace {

const char* kApp = R"(#include <cuda_runtime.h>

void fill(float* x, int n);

__global__ void square_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

int main() {
  const int n = 1 << 20;
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  fill(d_x, n);
  square_kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
)";

const char* kFill = R"(#include <cuda_runtime.h>

__global__ void fill_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * i;
}

void fill(float* x, int n) { fill_kernel<<<(n + 127) / 128, 128>>>(x, n); }
)";

const char* kPoly = R"(#include <cuda_runtime.h>

__constant__ float coeffs[4];

__global__ void poly_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = coeffs[0] + x[i] * (coeffs[1] + x[i] * (coeffs[2] + x[i] * coeffs[3]));
}

int main() {
  const int n = 1 << 20;
  const float h_coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
  cudaMemcpyToSymbol(coeffs, h_coeffs, sizeof(h_coeffs));
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  poly_kernel<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using kb::testing::kernel_table_with;

class InitWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_init_writes_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
  }
  void TearDown() override { fs::remove_all(dir_); }
  kb::testing::KernelbotRun kernelbot(const std::string& args) { return kb::testing::run_kernelbot(args, dir_); }
  void expect_checks() {
    auto check = kernelbot("config check");
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << slurp(dir_ / "kernelbot.toml");
    EXPECT_EQ(check.out.find("TODO"), std::string::npos) << check.out;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(InitWrites, AFunctionAnotherFileDefinesIsWrittenAsExtraSources) {
  std::ofstream(dir_ / "src/app.cu") << kApp;
  std::ofstream(dir_ / "src/fill.cu") << kFill;
  auto init = kernelbot("init --kernel square_kernel");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string config = slurp(dir_ / "kernelbot.toml");
  const std::string t = kernel_table_with(config, "global = \"square_kernel\"");
  ASSERT_FALSE(t.empty()) << config;
  EXPECT_NE(t.find("extra_sources = [\"src/fill.cu\"]   # check: src/app.cu uses fill (src/fill.cu:8), defined there"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("setup_source"), std::string::npos) << t;
  expect_checks();  // no hand edit
}

TEST_F(InitWrites, AConstantTheKernelReadsGetsASetupStubThatInitNeverOverwrites) {
  std::ofstream(dir_ / "src/poly.cu") << kPoly;
  auto init = kernelbot("init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string config = slurp(dir_ / "kernelbot.toml");
  const std::string t = kernel_table_with(config, "global = \"poly_kernel\"");
  ASSERT_FALSE(t.empty()) << config;
  EXPECT_NE(t.find("setup_source = \"kernelbot_setup_poly_kernel.cu\"   # TODO: fill in kb_setup() there: it sets "
                   "coeffs, as main() does"),
            std::string::npos)
      << t;
  const fs::path stub = dir_ / "kernelbot_setup_poly_kernel.cu";
  ASSERT_TRUE(fs::exists(stub)) << init.err;
  const std::string text = slurp(stub);
  EXPECT_NE(text.find("extern \"C\" int kb_setup(void) {"), std::string::npos) << text;
  EXPECT_NE(text.find("__global__ void poly_kernel(const float* x, float* y, int n);"), std::string::npos) << text;
  EXPECT_NE(text.find("// coeffs: `__constant__ float coeffs[4];` (src/poly.cu:3)"), std::string::npos) << text;
  EXPECT_NE(text.find("main() sets it at src/poly.cu:13: cudaMemcpyToSymbol(coeffs, h_coeffs, sizeof(h_coeffs));"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("if (device_global(\"coeffs\", &address, &bytes) != 0) return 1;"), std::string::npos) << text;
  EXPECT_NE(text.find("// TODO: the value main() gives coeffs"), std::string::npos) << text;
  expect_checks();  // the stub exists: the config is valid while its TODO waits

  // The user fills it in; init --force rewrites the config, never the stub.
  std::ofstream(stub) << "// filled in by hand\nextern \"C\" int kb_setup(void) { return 0; }\n";
  auto again = kernelbot("init --force");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(slurp(stub), "// filled in by hand\nextern \"C\" int kb_setup(void) { return 0; }\n");
  EXPECT_NE(again.err.find("exists already: left as it is"), std::string::npos) << again.err;
}

TEST_F(InitWrites, ATiedTileIsWrittenAsTheLaunchWritesIt) {
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/tied_tile", dir_, fs::copy_options::recursive);
  auto init = kernelbot("init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string config = slurp(dir_ / "kernelbot.toml");
  const std::string t = kernel_table_with(config, "global = \"gemm_tiled\"");
  ASSERT_FALSE(t.empty()) << config;
  EXPECT_NE(t.find("template_args = \"8\"   # as the code instantiates it (template <int TILE>)"), std::string::npos)
      << t;
  EXPECT_NE(t.find("block = \"8, 8\"   # as the launch at gemm.cu:35 writes it; the tuner varies it there"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("grid = \"ceil_div(N, block_x), ceil_div(M, block_y)\""), std::string::npos) << t;
  EXPECT_NE(t.find("name = \"C\"\n  role = \"output\""), std::string::npos) << t;
  expect_checks();
}
