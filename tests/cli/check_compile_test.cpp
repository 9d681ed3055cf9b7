// `kernelbot check --compile` on a machine without a GPU: each kernel's original compiled as a GPU
// run compiles it and loaded as the harness loads it, with a missing link_libs entry named by its
// undefined symbol and a compile error by the kernel's file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

// A launcher that needs a symbol from a library the test builds, and one that needs cuBLAS.
const char* kHelperKernel = R"(extern "C" float kb_helper_scale(float x);
__global__ void scale(float* y, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= s;
}
void launch_scale(float* y, int n) { scale<<<(n + 255) / 256, 256>>>(y, n, kb_helper_scale(1.5f)); }
)";

const char* kBlasKernel = R"(#include <cublas_v2.h>
__global__ void fill(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}
void launch_blas(float* y, int n) {
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) cublasDestroy(h);
  fill<<<(n + 255) / 256, 256>>>(y, n);
}
)";

const char* kBrokenKernel = R"(__global__ void broken(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = undeclared_name;
}
void launch_broken(float* y, int n) { broken<<<1, 256>>>(y, n); }
)";

std::string kernel_table(const std::string& name, const std::string& source, const std::string& launcher,
                         const std::string& link_libs) {
  return "[[kernel]]\nname = \"" + name + "\"\nsource = \"" + source + "\"\nlauncher = \"" + launcher +
         "\"\nsizes = [{ n = 1024 }]\n" + (link_libs.empty() ? "" : "link_libs = " + link_libs + "\n") +
         "  [[kernel.arg]]\n  name = \"y\"\n  role = \"inout\"\n  dtype = \"float32\"\n  count = \"n\"\n"
         "  [[kernel.arg]]\n  name = \"n\"\n  role = \"size\"\n  dtype = \"int32\"\n  value = \"n\"\n\n";
}

class CheckCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_check_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "lib");
    std::ofstream(dir_ / "helper.cpp") << "extern \"C\" float kb_helper_scale(float x) { return 2 * x; }\n";
    const std::string cc = "c++ -shared -fPIC -o " + (dir_ / "lib" / "libkbhelper.so").string() + " " +
                           (dir_ / "helper.cpp").string();
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
    std::ofstream(dir_ / "scale.cu") << kHelperKernel;
    std::ofstream(dir_ / "blas.cu") << kBlasKernel;
    std::ofstream(dir_ / "broken.cu") << kBrokenKernel;
    // The namespace sandbox where bubblewrap runs (as a real run would use), else plain processes.
    const bool namespaces = std::system("bwrap --ro-bind / / --unshare-all true >/dev/null 2>&1") == 0;
    std::ofstream(dir_ / "kernelbot.toml")
        << "[verify]\nsandbox = \"" << (namespaces ? "namespaces" : "process") << "\"\n\n"
        << kernel_table("linked", "scale.cu", "launch_scale", "[\"lib/libkbhelper.so\"]")
        << kernel_table("unlinked", "scale.cu", "launch_scale", "")
        << kernel_table("blas_linked", "blas.cu", "launch_blas", "[\"cublas\"]")
        << kernel_table("blas_unlinked", "blas.cu", "launch_blas", "")
        << kernel_table("broken", "broken.cu", "launch_broken", "");
  }
  void TearDown() override { fs::remove_all(dir_); }
  static bool have_harness() { return fs::exists(fs::path(KB_BINARY_DIR) / "bot" / "kernelbot-harness"); }
  fs::path dir_;
};

}  // namespace

TEST_F(CheckCompileTest, ReportsCompiledLoadedTheMissingSymbolAndCompileErrors) {
  const auto r = kb::testing::run_kernelbot("check --compile", dir_);
  if (!have_harness()) {
    // A build without CUPTI has no harness to load with: the check cannot pass silently.
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("kernelbot-harness"), std::string::npos) << r.err;
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << "two kernels do not load and one does not compile\n" << r.out << r.err;
  EXPECT_NE(r.out.find("kernel linked: compiled (-arch=sm_90), loaded\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("kernel unlinked: compiled (-arch=sm_90), NOT LOADED: undefined symbol kb_helper_scale"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kernel blas_linked: compiled (-arch=sm_90), loaded\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel blas_unlinked: compiled (-arch=sm_90), NOT LOADED: undefined symbol cublasCreate_v2, "
                       "probably from libcublas (link_libs = [\"cublas\"])"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kernel broken: COMPILE ERROR (-arch=sm_90)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("broken.cu:3"), std::string::npos) << "the error names the kernel's own file and line\n"
                                                          << r.out;
  EXPECT_NE(r.out.find("undeclared_name"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("variant.cu"), std::string::npos) << "not the compiler's copy of it\n" << r.out;
  EXPECT_NE(r.out.find("2 of 5 kernels compiled and loaded"), std::string::npos) << r.out;
}

TEST_F(CheckCompileTest, OneKernelJsonAndUsage) {
  if (!have_harness()) {
    EXPECT_EQ(kb::testing::run_kernelbot("check --compile --kernel linked", dir_).exit_code, 1);
    return;
  }
  auto ok = kb::testing::run_kernelbot("--json check --compile --kernel linked --kernel blas_linked", dir_);
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["arch"], "sm_90");
  ASSERT_EQ(j["kernels"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["kernel"], "linked");
  EXPECT_TRUE(j["kernels"][0]["loaded"].get<bool>());

  auto bad = kb::testing::run_kernelbot("--json check --compile --kernel unlinked", dir_);
  EXPECT_EQ(bad.exit_code, 1);
  const auto b = nlohmann::json::parse(bad.out);
  EXPECT_TRUE(b["kernels"][0]["compiled"].get<bool>());
  EXPECT_FALSE(b["kernels"][0]["loaded"].get<bool>());
  EXPECT_EQ(b["kernels"][0]["undefined_symbol"], "kb_helper_scale");

  auto unknown = kb::testing::run_kernelbot("check --compile --kernel nosuch", dir_);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no [[kernel]] named 'nosuch'"), std::string::npos) << unknown.err;
  auto help = kb::testing::run_kernelbot("check --help", dir_);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--compile"), std::string::npos) << help.out;
}

// Kernels compile in parallel (-j N, default one per core); the report reads as a serial one.
TEST_F(CheckCompileTest, ParallelCompilesReportInTheConfigsOrder) {
  EXPECT_EQ(kb::testing::run_kernelbot("check --compile -j 0", dir_).exit_code, 2) << "-j takes a positive number";
  if (!have_harness()) {
    EXPECT_EQ(kb::testing::run_kernelbot("check --compile -j 3", dir_).exit_code, 1);
    return;
  }
  const auto serial = kb::testing::run_kernelbot("check --compile -j 1", dir_);
  const auto parallel = kb::testing::run_kernelbot("check --compile -j 3", dir_);
  EXPECT_EQ(parallel.exit_code, serial.exit_code);
  // The same report, whatever finished first (bar the name of nvcc's scratch directory).
  const std::regex scratch(R"(build-[0-9a-f]+-[0-9]+-[0-9]+)");
  EXPECT_EQ(std::regex_replace(parallel.out, scratch, "build-*"), std::regex_replace(serial.out, scratch, "build-*"));
  size_t last = 0;
  for (const char* name :
       {"kernel linked:", "kernel unlinked:", "kernel blas_linked:", "kernel blas_unlinked:", "kernel broken:"}) {
    const size_t at = parallel.out.find(name);
    ASSERT_NE(at, std::string::npos) << name << "\n" << parallel.out;
    EXPECT_GE(at, last) << name << " out of the config's order\n" << parallel.out;
    last = at;
  }
  EXPECT_NE(parallel.err.find("5 kernel(s), 3 at a time"), std::string::npos) << parallel.err;
}
