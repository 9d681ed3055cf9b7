// Code a user did not write for kernelbot, as the compiler builds it: [project] prelude (forced
// includes for every unit), relative paths in nvcc_flags (nvcc runs in the cache, not the
// repository), extra_sources compiled without the kernel's forced includes, the setup source's
// kb_setup in the library, and a failed link's lines before ptxas's. With the real nvcc (no GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "config/config_loader.h"
#include "profiler/evaluate/compile/compile_log_order.h"
#include "profiler/evaluate/compile/nvcc_flag_paths.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

using Strings = std::vector<std::string>;

TEST(NvccFlagPaths, RelativeDirectoriesAndForcedIncludesResolveAgainstTheRoot) {
  const fs::path root = fs::temp_directory_path() / ("kb-flagpaths-" + std::to_string(getpid()));
  fs::create_directories(root / "compat");
  std::ofstream(root / "compat" / "old.h") << "#define OLD 1\n";
  const Strings in = {"-Iinclude",    "-I",
                      "third/inc",    "-isystem",
                      "sys",          "-include",
                      "compat/old.h", "-include",
                      "cuda_fp16.h",  "--pre-include=compat/old.h",
                      "-I/abs/dir",   "-DX=1",
                      "-Lrel/lib",    "--include-path=inc2",
                      "-O2"};
  const Strings out = resolve_flag_paths(in, root);
  const std::string r = root.string();
  const Strings expected = {"-I" + r + "/include",
                            "-I",
                            r + "/third/inc",
                            "-isystem",
                            r + "/sys",
                            "-include",
                            r + "/compat/old.h",
                            "-include",
                            "cuda_fp16.h",  // not in the repository: nvcc's include search finds it
                            "--pre-include=" + r + "/compat/old.h",
                            "-I/abs/dir",
                            "-DX=1",
                            "-L" + r + "/rel/lib",
                            "--include-path=" + r + "/inc2",
                            "-O2"};
  EXPECT_EQ(out, expected);
  fs::remove_all(root);
}

TEST(NvccFlagPaths, ForcedIncludesSplitFromTheRest) {
  const SplitFlags s = split_forced_includes(
      {"-include", "a.h", "-Iinc", "--pre-include=b.h", "-DX", "--pre-include", "c.h", "-O3"});
  EXPECT_EQ(s.forced_includes, (Strings{"-include", "a.h", "--pre-include=b.h", "--pre-include", "c.h"}));
  EXPECT_EQ(s.rest, (Strings{"-Iinc", "-DX", "-O3"}));
}

TEST(CompileLogOrder, PtxasInfoGoesAfterTheErrors) {
  const std::string log = "ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function 'k'\nwarning: w\n"
                          "ptxas info    : Used 8 registers\n/usr/bin/ld: extra0.o: multiple definition of `g_table'\n";
  const std::string ordered = ptxas_info_last(log);
  EXPECT_EQ(ordered,
            "warning: w\n/usr/bin/ld: extra0.o: multiple definition of `g_table'\nptxas info    : 0 bytes gmem\n"
            "ptxas info    : Compiling entry function 'k'\nptxas info    : Used 8 registers\n");
  EXPECT_EQ(ptxas_info_last("no newline"), "no newline");
  EXPECT_EQ(ptxas_info_last(""), "");
}

// The kernel needs OLD_REAL from the prelude (as an old framework header provided it) and
// HELPER_SCALE from a header forced in by its nvcc_flags, which also defines a global: in the
// extra source (which the prelude reaches too) that global would be a second definition.
const char* kKernel = R"(
__global__ void scale_kernel(const OLD_REAL* x, OLD_REAL* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = HELPER_SCALE * x[i] * helper_offset();
}
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
)";

class PreludeCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-prelude-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "compat");
    fs::create_directories(root_ / "helpers");
    std::ofstream(root_ / "scale.cu") << kKernel;
    std::ofstream(root_ / "compat" / "prelude.h") << "#pragma once\ntypedef float OLD_REAL;\n";
    std::ofstream(root_ / "helpers" / "forced.h")
        << "#pragma once\n#define HELPER_SCALE 2.0f\nfloat g_forced_global = 1.0f;\n"
           "__host__ __device__ inline float helper_offset() { return 1.0f; }\n";
    // The extra source uses the prelude's typedef too; it must not see forced.h's global.
    std::ofstream(root_ / "extra.cu") << "OLD_REAL extra_value() { return 3.0f; }\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  config::Config load(const std::string& project, const std::string& kernel_extra = "") {
    return config::load_config_text("[project]\n" + project + R"(
[[kernel]]
name = "scale"
source = "scale.cu"
launcher = "launch_scale"
sizes = [{ n = 1000 }]
)" + kernel_extra + R"(
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
  CompiledVariant compile(const config::Config& config) {
    CompilerOptions o;
    o.work_dir = root_ / ".kernelbot" / "work";
    VariantCompiler compiler(config, o);
    const Variant original{read(root_ / "scale.cu"), {}, {}, "original"};
    return compiler.compile(config.kernels[0], original);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string dynamic_symbols(const std::string& library) {
    SandboxCommand nm;
    nm.argv = {"nm", "-D", library};
    return run_sandboxed(nm).out;
  }
  fs::path root_;
};

TEST_F(PreludeCompileTest, PreludeAndRelativeForcedIncludeReachTheKernelAndOnlyThePreludeTheExtraSource) {
  const auto config = load(R"(prelude = ["compat/prelude.h"]
nvcc_flags = ["-include", "helpers/forced.h"]
extra_sources = ["extra.cu"]
)");
  CompiledVariant r = compile(config);
  ASSERT_TRUE(r.ok) << r.log;
  const std::string symbols = dynamic_symbols(r.library_path);
  EXPECT_NE(symbols.find("g_forced_global"), std::string::npos) << symbols;  // once: the kernel's unit
  EXPECT_NE(symbols.find("extra_value"), std::string::npos) << symbols;      // the extra source's object
  EXPECT_EQ(symbols.find("kb_setup"), std::string::npos) << symbols;

  // The flags say the same: the prelude (absolute) in both, the forced include only in the kernel's.
  CompilerOptions o;
  o.work_dir = root_ / ".kernelbot" / "work";
  VariantCompiler compiler(config, o);
  const Variant v{"", {}, {}, ""};
  const Strings kernel = compiler.flags(config.kernels[0], v);
  const Strings extra = compiler.extra_source_flags(config.kernels[0], v);
  const std::string prelude = (root_ / "compat" / "prelude.h").string();
  const std::string forced = (root_ / "helpers" / "forced.h").string();
  EXPECT_NE(std::find(kernel.begin(), kernel.end(), prelude), kernel.end());
  EXPECT_NE(std::find(kernel.begin(), kernel.end(), forced), kernel.end());
  EXPECT_NE(std::find(extra.begin(), extra.end(), prelude), extra.end());
  EXPECT_EQ(std::find(extra.begin(), extra.end(), forced), extra.end());
  EXPECT_LT(std::find(kernel.begin(), kernel.end(), prelude), std::find(kernel.begin(), kernel.end(), forced));
}

TEST_F(PreludeCompileTest, WithoutThePreludeTheOldTypeIsUnknown) {
  CompiledVariant r = compile(load("nvcc_flags = [\"-include\", \"helpers/forced.h\"]\n"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("OLD_REAL"), std::string::npos) << r.log;
}

TEST_F(PreludeCompileTest, TheSetupSourceIsLinkedInAndItsKbSetupRequired) {
  std::ofstream(root_ / "setup.cu")
      << "#include <cuda_runtime.h>\ncudaDeviceProp g_props;\n"
         "extern \"C\" int kb_setup(void) { return cudaGetDeviceProperties(&g_props, 0); }\n";
  const std::string project = "prelude = [\"compat/prelude.h\"]\nnvcc_flags = [\"-include\", \"helpers/forced.h\"]\n";
  CompiledVariant r = compile(load(project + "setup_source = \"setup.cu\"\n"));
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(dynamic_symbols(r.library_path).find(" T kb_setup"), std::string::npos);

  // C++ linkage: kb_setup is mangled, the shim's reference stays undefined (the load fails on it).
  std::ofstream(root_ / "setup_cpp.cu") << "int kb_setup(void) { return 0; }\n";
  CompiledVariant wrong = compile(load(project, "setup_source = \"setup_cpp.cu\"\n"));
  ASSERT_TRUE(wrong.ok) << wrong.log;
  EXPECT_NE(dynamic_symbols(wrong.library_path).find(" U kb_setup"), std::string::npos);
}

TEST_F(PreludeCompileTest, AFailedLinkShowsTheLinkerBeforePtxas) {
  // The extra source defines the kernel file's global again: a real "multiple definition".
  std::ofstream(root_ / "extra.cu") << "float g_forced_global = 2.0f;\n__global__ void other(float* p) { p[0] = 1; }\n";
  CompiledVariant r = compile(load(R"(prelude = ["compat/prelude.h"]
nvcc_flags = ["-include", "helpers/forced.h"]
extra_sources = ["extra.cu"]
)"));
  ASSERT_FALSE(r.ok);
  const size_t link = r.log.find("multiple definition");
  ASSERT_NE(link, std::string::npos) << r.log;
  const size_t ptxas = r.log.find("ptxas info");
  if (ptxas != std::string::npos) {
    EXPECT_LT(link, ptxas) << r.log;
  }
}

}  // namespace
}  // namespace kb::profiler
