// Launchers of the shapes people and models write beyond `kernel<<<...>>>` in the launcher's own
// body: through a host helper (template, in a namespace, helpers calling helpers, recursion),
// in a lambda, through a function pointer chosen by the sizes (ternary, switch, table), and
// through the runtime API (cudaLaunchKernel, cudaLaunchKernelEx, cudaLaunchCooperativeKernel).
// The launcher's launches must name the real kernels, marked so that consumers can tell.
#include <gtest/gtest.h>

#include <set>

#include "cuda_source/tokens/helper_launches.h"
#include "cuda_source/tokens/source_scanner.h"

using namespace kb::cuda_source;

namespace {

ScanResult scan_text(const std::string& text) {
  ScanResult r;
  scan_source(text, "t.cu", r);
  return r;
}

const ScannedLauncher* found_launcher(const ScanResult& r, const std::string& name) {
  for (const auto& l : r.launchers)
    if (l.name == name) return &l;
  return nullptr;
}

std::set<std::string> kernels_launched_by(const ScannedLauncher& l) {
  std::set<std::string> out;
  for (const auto& launch : l.launches) out.insert(launch.kernel);
  return out;
}

using Names = std::set<std::string>;

// A tiled GEMM as a model writes it: the launch in a helper template in `detail`, chosen by size.
const std::string kTiledGemm = R"(#include <cuda_runtime.h>

namespace {
constexpr int kSmallTile = 16;
}

template <typename T, int TILE>
__global__ void gemm_tiled(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int n) {
  __shared__ T as[TILE][TILE];
  __shared__ T bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  T acc = T(0);
  for (int t = 0; t < n; t += TILE) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

__global__ void unrelated(float* x) { x[0] = 0; }

namespace detail {
template <typename T, int TILE>
void launch_tiled(const T* a, const T* b, T* c, int n, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  gemm_tiled<T, TILE><<<grid, block, 0, stream>>>(a, b, c, n);
}
}  // namespace detail

// c = a * b for n x n row-major matrices.
void launch_gemm(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
  if (n >= 2048) {
    detail::launch_tiled<float, 32>(a, b, c, n, stream);
  } else {
    detail::launch_tiled<float, kSmallTile>(a, b, c, n, stream);
  }
}
)";

}  // namespace

TEST(IndirectLaunch, ThroughAHelperTemplateInANamespace) {
  auto r = scan_text(kTiledGemm);
  const auto* helper = found_launcher(r, "detail::launch_tiled");
  ASSERT_NE(helper, nullptr);
  ASSERT_EQ(helper->launches.size(), 1u);
  EXPECT_TRUE(helper->launches[0].edits_in_place());

  const auto* l = found_launcher(r, "launch_gemm");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), Names{"gemm_tiled"});
  ASSERT_EQ(l->launches.size(), 1u);  // one site, reached by both calls
  const auto& launch = l->launches[0];
  EXPECT_EQ(launch.via, "detail::launch_tiled");
  EXPECT_FALSE(launch.edits_in_place());
  EXPECT_FALSE(launch.in_launcher_scope());
  EXPECT_EQ(launch.line, helper->launches[0].line);  // where the site really is
  EXPECT_EQ(launch.config_parts, helper->launches[0].config_parts);
  // Its calls are kept, explicit template arguments stripped from the name.
  ASSERT_EQ(l->calls.size(), 2u);
  EXPECT_EQ(l->calls[0].callee, "detail::launch_tiled");
  EXPECT_EQ(l->calls[0].arguments, (std::vector<std::string>{"a", "b", "c", "n", "stream"}));
  // `functions` is as it was: every function, no launches.
  for (const auto& f : r.functions) EXPECT_TRUE(f.launches.empty()) << f.name;
}

TEST(IndirectLaunch, HelpersCallingHelpersAreFollowedToAFixpoint) {
  auto r = scan_text(R"(__global__ void rows_kernel(const float* x, float* y, int rows, int cols) {}
__global__ void bias_kernel(float* y, const float* bias, int rows, int cols) {}
namespace {
void launch_rows(const float* x, float* y, int rows, int cols) {
  rows_kernel<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
}  // namespace
namespace ops {
namespace detail {
inline void add_bias(float* y, const float* bias, int rows, int cols) {
  bias_kernel<<<rows, 256>>>(y, bias, rows, cols);
}
void forward_impl(const float* x, float* y, const float* bias, int rows, int cols) {
  launch_rows(x, y, rows, cols);
  add_bias(y, bias, rows, cols);
}
}  // namespace detail
void forward(const float* x, float* y, const float* bias, int rows, int cols) {
  detail::forward_impl(x, y, bias, rows, cols);
}
}  // namespace ops
void run_layer(const float* x, float* y, const float* bias, int rows, int cols) {
  ops::forward(x, y, bias, rows, cols);
}
)");
  for (const char* name : {"ops::detail::forward_impl", "ops::forward", "run_layer"}) {
    const auto* l = found_launcher(r, name);
    ASSERT_NE(l, nullptr) << name;
    EXPECT_EQ(kernels_launched_by(*l), (Names{"rows_kernel", "bias_kernel"})) << name;
    for (const auto& launch : l->launches) EXPECT_FALSE(launch.via.empty()) << name;
  }
  // Each launch says which function holds its site, however deep the chain.
  const auto* top = found_launcher(r, "run_layer");
  ASSERT_NE(top, nullptr);
  std::set<std::string> vias;
  for (const auto& launch : top->launches) vias.insert(launch.via);
  EXPECT_EQ(vias, (Names{"launch_rows", "ops::detail::add_bias"}));
  // The helpers keep their own sites, unmarked.
  ASSERT_NE(found_launcher(r, "launch_rows"), nullptr);
  EXPECT_TRUE(found_launcher(r, "launch_rows")->launches[0].via.empty());
}

TEST(IndirectLaunch, RecursionEnds) {
  auto r = scan_text(R"(__global__ void k(int* x) {}
void a(int* x, int depth) {
  if (depth > 0) b(x, depth - 1);
  k<<<1, 32>>>(x);
}
void b(int* x, int depth) { a(x, depth); }
void self(int* x, int depth) {
  if (depth > 0) self(x, depth - 1);
}
void p();
void q() { p(); }
void p() { q(); }
void top(int* x) { b(x, 3); self(x, 2); p(); }
)");
  const auto* a = found_launcher(r, "a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->launches.size(), 1u);  // its own site, not again through b
  EXPECT_TRUE(a->launches[0].via.empty());
  const auto* b = found_launcher(r, "b");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->launches.size(), 1u);
  EXPECT_EQ(b->launches[0].via, "a");
  EXPECT_EQ(found_launcher(r, "self"), nullptr);
  EXPECT_EQ(found_launcher(r, "p"), nullptr);
  EXPECT_EQ(found_launcher(r, "q"), nullptr);
  ASSERT_NE(found_launcher(r, "top"), nullptr);
  EXPECT_EQ(kernels_launched_by(*found_launcher(r, "top")), Names{"k"});
}

TEST(IndirectLaunch, LambdasLaunchForTheirFunction) {
  auto r = scan_text(R"(template <int BLOCK>
__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {}
__global__ void fill(float* y, float v, int n) {}
void fill_all(float* y, int n) { fill<<<(n + 255) / 256, 256>>>(y, 0.f, n); }
void launch_softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  auto launch = [&](auto block_tag) {
    constexpr int BLOCK = decltype(block_tag)::value;
    softmax_rows<BLOCK><<<rows, BLOCK, 0, stream>>>(x, y, rows, cols);
  };
  auto clear = [=]() { fill_all(y, rows * cols); };
  if (cols == 0) return clear();
  if (cols <= 1024) launch(std::integral_constant<int, 128>{});
  else launch(std::integral_constant<int, 512>{});
}
)");
  const auto* l = found_launcher(r, "launch_softmax");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), (Names{"softmax_rows", "fill"}));
  for (const auto& launch : l->launches)
    EXPECT_EQ(launch.via, launch.kernel == "softmax_rows" ? "" : "fill_all") << launch.kernel;
}

TEST(IndirectLaunch, APointerChosenByTheSizesNamesEveryKernelItCanHold) {
  auto r = scan_text(R"(template <int BLOCK>
__global__ void big_kernel(const float* x, float* y, int n) {}
__global__ void small_kernel(const float* x, float* y, int n) {}
void launch_scale(const float* x, float* y, int n, cudaStream_t stream) {
  auto kernel = n > 4096 ? big_kernel<256> : small_kernel;
  kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
)");
  const auto* l = found_launcher(r, "launch_scale");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), (Names{"big_kernel", "small_kernel"}));
  ASSERT_EQ(l->launches.size(), 2u);
  for (const auto& launch : l->launches) {
    EXPECT_EQ(launch.variable, "kernel");
    EXPECT_EQ(launch.line, 6);
    EXPECT_TRUE(launch.via.empty());
    EXPECT_TRUE(launch.in_launcher_scope());
    EXPECT_FALSE(launch.edits_in_place());
    EXPECT_EQ(launch.arguments, (std::vector<std::string>{"x", "y", "n"}));
  }
}

TEST(IndirectLaunch, APointerSetInASwitch) {
  auto r = scan_text(R"(__global__ void copy_v1(const float* x, float* y, int n) {}
__global__ void copy_v2(const float* x, float* y, int n) {}
template <int VEC> __global__ void copy_vec(const float* x, float* y, int n) {}
void launch_copy(const float* x, float* y, int n, int vec) {
  void (*kernel)(const float*, float*, int) = nullptr;
  switch (vec) {
    case 2: kernel = copy_v2; break;
    case 4: kernel = copy_vec<4>; break;
    default: kernel = copy_v1; break;
  }
  const int threads = 128;
  kernel<<<(n / vec + threads - 1) / threads, threads>>>(x, y, n);
}
)");
  const auto* l = found_launcher(r, "launch_copy");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), (Names{"copy_v1", "copy_v2", "copy_vec"}));
  for (const auto& launch : l->launches) EXPECT_EQ(launch.variable, "kernel");
}

TEST(IndirectLaunch, ATableOfKernels) {
  auto r = scan_text(R"(template <int BLOCK> __global__ void reduce(const float* x, float* out, int n) {}
__global__ void k1(const float* x, float* out, int n) {}
__global__ void k2(const float* x, float* out, int n) {}
void launch_reduce(const float* x, float* out, int n) {
  using Kernel = void (*)(const float*, float*, int);
  static constexpr Kernel kernels[] = {reduce<128>, reduce<256>, reduce<512>};
  const int which = n > 65536 ? 2 : n > 4096 ? 1 : 0;
  kernels[which]<<<1, 128 << which>>>(x, out, n);
}
void launch_pair(const float* x, float* out, int n, int i) {
  static const decltype(&k1) table[] = {k1, k2};
  table[i]<<<dim3(n), dim3(32)>>>(x, out, n);
}
)");
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front().message;
  ASSERT_NE(found_launcher(r, "launch_reduce"), nullptr);
  EXPECT_EQ(kernels_launched_by(*found_launcher(r, "launch_reduce")), Names{"reduce"});
  ASSERT_NE(found_launcher(r, "launch_pair"), nullptr);
  EXPECT_EQ(kernels_launched_by(*found_launcher(r, "launch_pair")), (Names{"k1", "k2"}));
  EXPECT_EQ(found_launcher(r, "launch_pair")->launches[0].variable, "table");
}

TEST(IndirectLaunch, APointerReadFromAFileScopeTable) {
  auto r = scan_text(R"(__global__ void relu_kernel(const float* x, float* y, int n) {}
__global__ void tanh_kernel(const float* x, float* y, int n) {}
static void (*const kActivations[])(const float*, float*, int) = {relu_kernel, tanh_kernel};
int main(int argc, char** argv) {
  auto kernel = kActivations[argc % 2];
  kernel<<<1, 256>>>(nullptr, nullptr, 0);
}
)");
  const auto* l = found_launcher(r, "main");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), (Names{"relu_kernel", "tanh_kernel"})) << "the kernels, not the variable";
}

TEST(IndirectLaunch, AKernelPassedToAGenericLaunchHelper) {
  auto r = scan_text(R"(__global__ void relu_kernel(const float* x, float* y, int n) {}
__global__ void gelu_kernel(const float* x, float* y, int n) {}
namespace detail {
template <typename Kernel, typename... Args>
void launch_1d(Kernel kernel, int n, int threads, cudaStream_t stream, Args... args) {
  kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(args...);
}
template <typename Kernel, typename... Args>
void launch_default(Kernel k, int n, cudaStream_t stream, Args... args) {
  launch_1d(k, n, 256, stream, args...);
}
}  // namespace detail
void launch_act(const float* x, float* y, int n, bool gelu, cudaStream_t stream) {
  if (gelu) detail::launch_1d(gelu_kernel, n, 256, stream, x, y, n);
  else detail::launch_default(&relu_kernel, n, stream, x, y, n);
}
)");
  const auto* l = found_launcher(r, "launch_act");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(kernels_launched_by(*l), (Names{"relu_kernel", "gelu_kernel"}));
  for (const auto& launch : l->launches) EXPECT_EQ(launch.via, "detail::launch_1d");
  // The helper alone launches whatever it is given: its parameter.
  ASSERT_NE(found_launcher(r, "detail::launch_1d"), nullptr);
  EXPECT_EQ(found_launcher(r, "detail::launch_1d")->launches[0].variable, "kernel");
}

TEST(IndirectLaunch, RuntimeApiLaunches) {
  auto r = scan_text(R"(template <int BLOCK> __global__ void scale(const float* x, float* y, int n) {}
template <typename T> __global__ void rms_norm(const T* x, T* y, int n) {}
__global__ void grid_sync_kernel(float* x, int n) {}
void launch_scale(const float* x, float* y, int n, cudaStream_t stream) {
  dim3 grid((n + 127) / 128), block(128);
  void* args[] = {&x, &y, &n};
  cudaLaunchKernel(reinterpret_cast<const void*>(&scale<128>), grid, block, args, 0, stream);
}
void launch_norm(const float* x, float* y, int n, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(n / 256);
  config.blockDim = dim3(256);
  config.stream = stream;
  cudaLaunchKernelEx(&config, rms_norm<float>, x, y, n);
}
void launch_sync(float* x, int n) {
  void* args[] = {(void*)&x, (void*)&n};
  cudaLaunchCooperativeKernel((void*)grid_sync_kernel, dim3(132), dim3(256), args);
}
)");
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front().message;
  const auto* s = found_launcher(r, "launch_scale");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->launches.size(), 1u);
  EXPECT_EQ(s->launches[0].kernel, "scale");
  EXPECT_EQ(s->launches[0].api, "cudaLaunchKernel");
  EXPECT_EQ(s->launches[0].config_parts, (std::vector<std::string>{"grid", "block", "0", "stream"}));
  EXPECT_EQ(s->launches[0].arguments, (std::vector<std::string>{"x", "y", "n"}));
  EXPECT_TRUE(s->launches[0].launch_config.empty());
  EXPECT_FALSE(s->launches[0].edits_in_place());

  const auto* norm = found_launcher(r, "launch_norm");
  ASSERT_NE(norm, nullptr);
  ASSERT_EQ(norm->launches.size(), 1u);
  EXPECT_EQ(norm->launches[0].kernel, "rms_norm");
  EXPECT_EQ(norm->launches[0].api, "cudaLaunchKernelEx");
  EXPECT_TRUE(norm->launches[0].config_parts.empty());  // in the config struct
  EXPECT_EQ(norm->launches[0].arguments, (std::vector<std::string>{"x", "y", "n"}));

  const auto* sync = found_launcher(r, "launch_sync");
  ASSERT_NE(sync, nullptr);
  ASSERT_EQ(sync->launches.size(), 1u);
  EXPECT_EQ(sync->launches[0].kernel, "grid_sync_kernel");
  EXPECT_EQ(sync->launches[0].config_parts, (std::vector<std::string>{"dim3(132)", "dim3(256)"}));
  EXPECT_EQ(sync->launches[0].arguments, (std::vector<std::string>{"x", "n"}));
}

TEST(IndirectLaunch, AnApiLaunchOfAPointerAndTheDriverApi) {
  auto r = scan_text(R"(__global__ void a_kernel(float* x) {}
__global__ void b_kernel(float* x) {}
void launch_ab(float* x, bool b) {
  const void* fn = b ? (const void*)b_kernel : (const void*)a_kernel;
  void* args[] = {&x};
  cudaLaunchKernel(fn, dim3(1), dim3(32), args, 0, nullptr);
}
void launch_module(CUfunction f, void** args) { cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr); }
)");
  ASSERT_NE(found_launcher(r, "launch_ab"), nullptr);
  EXPECT_EQ(kernels_launched_by(*found_launcher(r, "launch_ab")), (Names{"a_kernel", "b_kernel"}));
  EXPECT_EQ(found_launcher(r, "launch_module"), nullptr);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].message.find("cuLaunchKernel"), std::string::npos);
}

TEST(IndirectLaunch, AHelperInAnotherFileAndRunsAgainWithoutDuplicates) {
  ScanResult r;
  scan_source(R"(#include "gemm_launch.cuh"
void launch_gemm(const float* a, float* c, int n) { detail::launch_tiled<float, 32>(a, c, n); }
)",
              "gemm.cu", r);
  EXPECT_TRUE(r.launchers.empty());  // the helper is not known yet
  scan_source(R"(template <typename T, int TILE> __global__ void gemm_tiled(const T* a, T* c, int n) {}
namespace detail {
template <typename T, int TILE> void launch_tiled(const T* a, T* c, int n) {
  gemm_tiled<T, TILE><<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(a, c, n);
}
}
)",
              "gemm_launch.cuh", r);
  const auto* l = found_launcher(r, "launch_gemm");
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->launches.size(), 1u);
  EXPECT_EQ(l->launches[0].kernel, "gemm_tiled");
  EXPECT_EQ(l->launches[0].file, "gemm_launch.cuh");
  resolve_launches(r);
  resolve_launches(r);
  ASSERT_NE(found_launcher(r, "launch_gemm"), nullptr);
  EXPECT_EQ(found_launcher(r, "launch_gemm")->launches.size(), 1u);
  EXPECT_EQ(r.launchers.size(), 2u);
}

TEST(IndirectLaunch, CallsAreLookedUpFromTheCallersNamespace) {
  std::vector<ScannedLauncher> f(4);
  f[0].name = "a::run";
  f[1].name = "b::run";
  f[2].name = "run";
  f[3].name = "a::inner::caller";
  EXPECT_EQ(called_functions(f, "a::inner::caller", "run"), std::vector<size_t>{0});
  EXPECT_EQ(called_functions(f, "b::x", "run"), std::vector<size_t>{1});
  EXPECT_EQ(called_functions(f, "c::x", "run"), std::vector<size_t>{2});
  EXPECT_EQ(called_functions(f, "a::x", "::run"), std::vector<size_t>{2});
  EXPECT_EQ(called_functions(f, "c::x", "b::run"), std::vector<size_t>{1});
  EXPECT_TRUE(called_functions(f, "a::x", "missing").empty());
}
