// The generated entry shim: its text, and that nvcc compiles it against real launchers.
#include "profiler/evaluate/compile/entry_shim.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/harness_job.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

config::ArgSpec arg(const std::string& name, ArgRole role, DType dtype) {
  config::ArgSpec a;
  a.name = name;
  a.role = role;
  a.dtype = dtype;
  return a;
}

config::KernelSpec saxpy_spec(const std::string& launcher) {
  config::KernelSpec k;
  k.name = "saxpy";
  k.launcher = launcher;
  k.args = {arg("x", ArgRole::input, DType::float32), arg("y", ArgRole::inout, DType::float32),
            arg("a", ArgRole::scalar, DType::float32), arg("n", ArgRole::size, DType::int32)};
  return k;
}

TEST(EntryShim, CastsEachArgumentByRole) {
  std::string shim = generate_entry_shim(saxpy_spec("launch_saxpy"), "/tmp/v/variant.cu");
  EXPECT_NE(shim.find("#include \"/tmp/v/variant.cu\""), std::string::npos) << shim;
  EXPECT_NE(shim.find("extern \"C\" __attribute__((visibility(\"default\"))) int kb_launch(void** a)"),
            std::string::npos);
  EXPECT_NE(shim.find("launch_saxpy("), std::string::npos);
  EXPECT_NE(shim.find("static_cast<float*>(a[0])"), std::string::npos);
  EXPECT_NE(shim.find("static_cast<float*>(a[1])"), std::string::npos);
  EXPECT_NE(shim.find("*static_cast<float*>(a[2])"), std::string::npos);
  EXPECT_NE(shim.find("*static_cast<int*>(a[3])"), std::string::npos);
  EXPECT_EQ(shim.find("*static_cast<float*>(a[0])"), std::string::npos) << "buffers are passed as pointers";
  EXPECT_EQ(shim.find("cuda_fp16.h"), std::string::npos);
  EXPECT_NE(shim.find("return 0;"), std::string::npos);
}

TEST(EntryShim, HalfTypesIncludeTheirHeadersAndPathsAreEscaped) {
  config::KernelSpec k;
  k.name = "h";
  k.launcher = "ops::detail::launch_h";
  k.args = {arg("x", ArgRole::input, DType::float16), arg("y", ArgRole::output, DType::bfloat16),
            arg("n", ArgRole::size, DType::int64)};
  std::string shim = generate_entry_shim(k, "/tmp/we\"ird\\dir/variant.cu");
  EXPECT_NE(shim.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(shim.find("#include <cuda_bf16.h>"), std::string::npos);
  EXPECT_NE(shim.find("#include \"/tmp/we\\\"ird\\\\dir/variant.cu\""), std::string::npos) << shim;
  EXPECT_NE(shim.find("ops::detail::launch_h("), std::string::npos);
  EXPECT_NE(shim.find("static_cast<__half*>(a[0])"), std::string::npos);
  EXPECT_NE(shim.find("static_cast<__nv_bfloat16*>(a[1])"), std::string::npos);
  EXPECT_NE(shim.find("*static_cast<int64_t*>(a[2])"), std::string::npos);
}

// A production launcher's trailing cudaStream_t: passed by value from the harness's stream.
TEST(EntryShim, StreamArgumentsPassTheHarnessStream) {
  config::KernelSpec k = saxpy_spec("launch_saxpy");
  config::ArgSpec stream;
  stream.name = "stream";
  stream.role = ArgRole::stream;
  stream.dtype = DType::float16;  // a stream's dtype is a placeholder and must not matter
  k.args.push_back(stream);
  const std::string shim = generate_entry_shim(k, "/tmp/v/variant.cu");
  EXPECT_NE(shim.find("#include <cuda_runtime_api.h>"), std::string::npos) << shim;
  EXPECT_NE(shim.find("*static_cast<cudaStream_t*>(a[4])  /* stream: stream */"), std::string::npos) << shim;
  EXPECT_EQ(shim.find("cuda_fp16.h"), std::string::npos) << "no header for a stream's placeholder dtype";
  EXPECT_EQ(generate_entry_shim(saxpy_spec("launch_saxpy"), "/tmp/v/variant.cu").find("cuda_runtime_api.h"),
            std::string::npos)
      << "a launcher without a stream gets no extra include";
}

// nvcc works without a GPU: compiling the shim with real launchers proves the casts type-check
// against const and non-const pointer parameters, references to scalars, a cudaStream_t, and
// namespaces.
TEST(EntryShim, CompilesWithNvcc) {
  std::string nvcc = find_nvcc();
  ASSERT_FALSE(nvcc.empty()) << "nvcc is needed to build kernelbot";
  fs::path dir = fs::temp_directory_path() / ("kb-shim-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "variant.cu") << R"(
#include <cuda_fp16.h>
#include <cstdint>
namespace ops { namespace detail {
__global__ void k(const __half* x, __half* y, int64_t n, float s) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(__half2float(x[i]) * s);
}
void launch_h(const __half* x, __half* y, int64_t n, const float& s, cudaStream_t stream) {
  k<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, s);
}
} }
)";
  config::KernelSpec k;
  k.name = "h";
  k.launcher = "ops::detail::launch_h";
  k.args = {arg("x", ArgRole::input, DType::float16), arg("y", ArgRole::output, DType::float16),
            arg("n", ArgRole::size, DType::int64), arg("s", ArgRole::scalar, DType::float32),
            arg("stream", ArgRole::stream, DType::float32)};
  std::ofstream(dir / "entry.cu") << generate_entry_shim(k, (dir / "variant.cu").string());
  SandboxCommand c;
  c.argv = {
      nvcc, "-c", "-arch=sm_90", "-Xcompiler", "-fPIC", "-o", (dir / "entry.o").string(), (dir / "entry.cu").string()};
  c.limits.wall_time_s = 300;
  auto r = run_sandboxed(c);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The symbol is exported unmangled.
  SandboxCommand nm;
  nm.argv = {"nm", "-g", (dir / "entry.o").string()};
  auto symbols = run_sandboxed(nm);
  EXPECT_NE(symbols.out.find(" T kb_launch\n"), std::string::npos) << symbols.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kb::profiler
