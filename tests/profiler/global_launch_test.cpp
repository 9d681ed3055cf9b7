// The entry shim of a kernel target: its text, the block it launches, and that nvcc compiles it.
#include "profiler/evaluate/compile/global_launch.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include "cuda_source/knobs/literal_knobs.h"

#include <filesystem>
#include <fstream>

#include "profiler/evaluate/compile/entry_shim.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/evaluate/jobs/harness_job_builder.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

config::ArgSpec target_arg(const std::string& name, ArgRole role, DType dtype, const std::string& expr) {
  config::ArgSpec a;
  a.name = name;
  a.role = role;
  a.dtype = dtype;
  (role_is_buffer(role) ? a.count : a.value) = expr;
  return a;
}

config::KernelSpec gelu_target() {
  config::KernelSpec k;
  k.name = "gelu";
  k.source = "ext.cu";
  k.global = "gelu_kernel";
  k.grid = "ceil_div(n, block_x)";
  k.block = "32";
  k.args = {target_arg("out", ArgRole::output, DType::float32, "n"),
            target_arg("in", ArgRole::input, DType::float32, "n"), target_arg("n", ArgRole::size, DType::int64, "n")};
  k.sizes = {{{{"n", 1000}}}};
  return k;
}

const char* kSource = R"(#include <cstdint>
struct Tensor { float* data; int64_t numel; };
__global__ void gelu_kernel(float* out, const float* in, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f;
}
void gelu(Tensor& out, const Tensor& in) {
  gelu_kernel<<<(in.numel + 31) / 32, 32>>>(out.data, in.data, in.numel);
}
)";

TEST(GlobalLaunch, BindsArgumentsByNameAndLaunchesOnTheHarnessStream) {
  const std::string shim = generate_entry_shim(gelu_target(), "/tmp/v/variant.cu");
  EXPECT_NE(shim.find("float* out = static_cast<float*>(kb_args[0]);"), std::string::npos) << shim;
  EXPECT_NE(shim.find("const int64_t n = *static_cast<int64_t*>(kb_args[2]);"), std::string::npos) << shim;
  EXPECT_NE(shim.find("cudaStream_t kb_stream = *static_cast<cudaStream_t*>(kb_args[3]);"), std::string::npos);
  EXPECT_NE(shim.find("const dim3 kb_grid(static_cast<unsigned>(ceil_div(n, block_x)));"), std::string::npos);
  EXPECT_NE(shim.find("const unsigned block_x = static_cast<unsigned>(32);"), std::string::npos) << shim;
  EXPECT_NE(shim.find("gelu_kernel<<<kb_grid, dim3(block_x, block_y, block_z), kb_shared, kb_stream>>>(out, in, n);"),
            std::string::npos);
  EXPECT_NE(shim.find("return cudaGetLastError() == cudaSuccess ? 0 : 1;"), std::string::npos);
  EXPECT_NE(shim.find("int kb_launch(void** a) { return kb_shim::launch(a); }"), std::string::npos);
}

// KB_BLOCK_X is the tuner's advisory probe's (never published); a candidate that defines it
// itself would be measured with a block its PR text never launches, so only a probe gets it.
TEST(GlobalLaunch, OnlyAnAdvisoryProbeSetsTheBlockByMacro) {
  const std::string candidate = std::string("#define KB_BLOCK_X 1024\n") + kSource;
  EXPECT_EQ(generate_entry_shim(gelu_target(), "/tmp/v/variant.cu", candidate).find("KB_BLOCK_X"), std::string::npos);
  const std::string probe = std::string(kSource) + "#define KB_BLOCK_X 256 " + cuda_source::kAdvisoryProbeMarker +
                            "gelu's block\n";
  EXPECT_NE(generate_entry_shim(gelu_target(), "/tmp/v/variant.cu", probe).find("#ifdef KB_BLOCK_X"), std::string::npos)
      << "an advisory probe's #define wins";
}

TEST(GlobalLaunch, TheBlockFollowsTheLaunchSiteOfTheTextCompiled) {
  config::KernelSpec k = gelu_target();
  EXPECT_EQ(launch_site_block(k, kSource), std::vector<int64_t>{32});
  std::string tuned = kSource;
  tuned.replace(tuned.find("(in.numel + 31) / 32, 32"), 24, "(in.numel + 127) / 128, 128");
  ASSERT_EQ(launch_site_block(k, tuned), std::vector<int64_t>{128});
  const std::string shim = generate_entry_shim(k, "/tmp/v/variant.cu", tuned);
  EXPECT_NE(shim.find("block_x = static_cast<unsigned>(128);  // as the launch site writes it"), std::string::npos)
      << shim;
  // A block that is an expression is the config's, whatever the site writes.
  k.block = "threads_for(n)";
  EXPECT_FALSE(launch_site_block(k, tuned));
  // A launcher target has no launch site of its own.
  config::KernelSpec launcher = gelu_target();
  launcher.global.clear();
  launcher.launcher = "gelu";
  EXPECT_FALSE(launch_site_block(launcher, kSource));
}

// A tile that is both the template argument and the block (one tied knob): the shim instantiates
// the kernel as the tuned site writes it, so the block and the tile it sizes never disagree.
TEST(GlobalLaunch, TheTemplateArgumentsFollowTheLaunchSiteWithItsBlock) {
  const char* source = R"(#define WIDTH 4
template <int TILE, int W>
__global__ void gemm(float* C, int n) {
  __shared__ float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = 0.0f;
  if (threadIdx.x < W) C[threadIdx.x] = tile[0][threadIdx.x];
}
int main() {
  const int n = 1024;
  float* C = nullptr;
  gemm<8, WIDTH><<<dim3((n + 7) / 8, (n + 7) / 8), dim3(8, 8)>>>(C, n);
}
)";
  config::KernelSpec k;
  k.name = "gemm";
  k.source = "gemm.cu";
  k.global = "gemm";
  k.template_args = "8, 4";
  k.grid = "ceil_div(n, block_x), ceil_div(n, block_y)";
  k.block = "8, 8";
  k.args = {target_arg("C", ArgRole::output, DType::float32, "n"), target_arg("n", ArgRole::size, DType::int32, "n")};
  EXPECT_EQ(launch_site_template_args(k, source), "8, WIDTH");
  std::string tuned = source;
  tuned.replace(tuned.find("gemm<8, WIDTH><<<dim3((n + 7) / 8, (n + 7) / 8), dim3(8, 8)>>>"), 62,
                "gemm<16, WIDTH><<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>");
  ASSERT_EQ(launch_site_block(k, tuned), (std::vector<int64_t>{16, 16})) << tuned;
  const std::string shim = generate_entry_shim(k, "/tmp/v/variant.cu", tuned);
  EXPECT_NE(shim.find("gemm<16, WIDTH><<<kb_grid"), std::string::npos) << shim;
  // A name the shim cannot see (a local of main) leaves the config's arguments.
  std::string local = source;
  local.replace(local.find("gemm<8, WIDTH>"), 14, "gemm<8, n>");
  EXPECT_FALSE(launch_site_template_args(k, local));
  EXPECT_NE(generate_entry_shim(k, "/tmp/v/variant.cu", local).find("gemm<8, 4><<<kb_grid"), std::string::npos);
}

TEST(GlobalLaunch, TheJobPassesTheHarnessStreamLast) {
  config::Config c;
  HarnessJob job = make_harness_job(c, gelu_target());
  ASSERT_EQ(job.args.size(), 4u);
  EXPECT_EQ(job.args[3].role, ArgRole::stream);
  EXPECT_EQ(job.args[2].name, "n");
}

// nvcc needs no GPU: the shim of a template kernel with 2-D launch expressions, shared bytes that
// read the block, and a scalar type-checks against the real kernel, and exports kb_launch.
TEST(GlobalLaunch, CompilesWithNvcc) {
  std::string nvcc = find_nvcc();
  ASSERT_FALSE(nvcc.empty()) << "nvcc is needed to build kernelbot";
  fs::path dir = fs::temp_directory_path() / ("kb-global-shim-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "variant.cu") << R"(#include <cstdint>
#include <cuda_fp16.h>
template <typename T, int UNROLL>
__global__ void tile_scale(T* out, const T* in, int rows, int cols, float s) {
  extern __shared__ float scratch[];
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = s;
  if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c] * (T)scratch[threadIdx.x];
}
int main() { return 0; }
)";
  config::KernelSpec k;
  k.name = "tile";
  k.global = "tile_scale";
  k.template_args = "__half, 4";
  k.grid = "ceil_div(cols, block_x), min(ceil_div(rows, block_y), 65535)";
  k.block = "32, 8";
  k.shared_bytes = "block_x * sizeof(float)";
  k.args = {target_arg("out", ArgRole::output, DType::float16, "rows*cols"),
            target_arg("in", ArgRole::input, DType::float16, "rows*cols"),
            target_arg("rows", ArgRole::size, DType::int32, "rows"),
            target_arg("cols", ArgRole::size, DType::int32, "cols"),
            target_arg("s", ArgRole::scalar, DType::float32, "")};
  std::ofstream(dir / "entry.cu") << generate_entry_shim(k, (dir / "variant.cu").string());
  SandboxCommand c;
  c.argv = {nvcc,
            "-c",
            "-arch=sm_90",
            "-Xcompiler",
            "-fPIC",
            "-Werror",
            "all-warnings",
            "-o",
            (dir / "entry.o").string(),
            (dir / "entry.cu").string()};
  c.limits.wall_time_s = 300;
  auto r = run_sandboxed(c);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  SandboxCommand nm;
  nm.argv = {"nm", "-g", (dir / "entry.o").string()};
  auto symbols = run_sandboxed(nm);
  EXPECT_NE(symbols.out.find(" T kb_launch\n"), std::string::npos) << symbols.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kb::profiler
