// Splicing a reply written the way people and models write C++ into the whole file: helpers in
// anonymous, named and nested namespaces, templates and their specializations, changed constants
// and aliases, includes. Each spliced file is compared whole and compiled by the host compiler.
#include <gtest/gtest.h>

#include "cuda_source/splicing/definition_splice.h"
#include "tests/cuda_source/host_syntax_check.h"
#include "tests/cuda_source/splice_test_support.h"

using kb::cuda_source::DefinitionSplice;
using kb::cuda_source::splice_definitions;
using kb::testing::edits_of;
using kb::testing::host_syntax_errors;
using kb::testing::occurrences;

TEST(NamespaceSplice, HelpersInTheRepliesAnonymousNamespaceJoinTheFilesBeforeTheKernel) {
  const std::string file = R"(#include <cuda_runtime.h>

namespace {

// Copies; one element per thread.
__global__ void gemm_kernel(const float* a, float* c, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) c[i] = a[i];
}

__global__ void other_kernel(float* x) { x[threadIdx.x] = 0; }

}  // namespace

void launch_gemm(const float* a, float* c, int n, cudaStream_t stream) {
  gemm_kernel<<<(n + 127) / 128, 128, 0, stream>>>(a, c, n);
}

void launch_other(float* x) { other_kernel<<<1, 32>>>(x); }
)";
  const std::string reply = R"(namespace {
constexpr int kThreads = 256;
template <int TILE> __device__ float4 load_tile(const float* p, int i) {
  return make_float4(p[i], p[i + 1], p[i + 2], p[i + TILE - 1]);
}
__global__ void gemm_kernel(const float* a, float* c, int n) {
  int i = blockIdx.x * kThreads + threadIdx.x;
  if (i + 64 < n) c[i] = load_tile<64>(a, i).x;
}
}  // namespace
void launch_gemm(const float* a, float* c, int n, cudaStream_t stream) {
  dim3 grid((n + kThreads - 1) / kThreads);
  gemm_kernel<<<grid, kThreads, 0, stream>>>(a, c, n);
}
)";
  const DefinitionSplice splice = splice_definitions("gemm.cu", file, "launch_gemm", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;

template <int TILE> __device__ float4 load_tile(const float* p, int i) {
  return make_float4(p[i], p[i + 1], p[i + 2], p[i + TILE - 1]);
}

__global__ void gemm_kernel(const float* a, float* c, int n) {
  int i = blockIdx.x * kThreads + threadIdx.x;
  if (i + 64 < n) c[i] = load_tile<64>(a, i).x;
}

__global__ void other_kernel(float* x) { x[threadIdx.x] = 0; }

}  // namespace

void launch_gemm(const float* a, float* c, int n, cudaStream_t stream) {
  dim3 grid((n + kThreads - 1) / kThreads);
  gemm_kernel<<<grid, kThreads, 0, stream>>>(a, c, n);
}

void launch_other(float* x) { other_kernel<<<1, 32>>>(x); }
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_gemm, gemm_kernel replaced by the winner's definitions\n"
                              "kThreads, load_tile (in the anonymous namespace) added before their first use\n");
}

TEST(NamespaceSplice, TheHostCompilerCheckCatchesANameUsedBeforeItIsDeclared) {
  // What the splicer produced before it read namespaces: the kernel without its constant.
  const std::string broken = "__global__ void k(float* y) { y[threadIdx.x] = kThreads; }\n"
                             "void launch_k(float* y) { k<<<1, 32>>>(y); }\n";
  EXPECT_NE(host_syntax_errors(broken).find("kThreads"), std::string::npos);
}

TEST(NamespaceSplice, HelpersInANamedDetailNamespaceAreWrappedInItWhereTheFileHasNone) {
  const std::string file = R"(#include <cuda_runtime.h>

// Sums each row; one thread per row.
__global__ void row_sum(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int c = 0; c < cols; ++c) s += x[r * cols + c];
  y[r] = s;
}

void launch_row_sum(const float* x, float* y, int rows, int cols) { row_sum<<<(rows + 127) / 128, 128>>>(x, y, rows, cols); }
)";
  const std::string reply = R"(namespace detail {

// Sum over a warp.
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

constexpr int kWarp = 32;

}  // namespace detail

__global__ void row_sum(const float* x, float* y, int rows, int cols) {
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += detail::kWarp) s += x[blockIdx.x * cols + c];
  s = detail::warp_sum(s);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

void launch_row_sum(const float* x, float* y, int rows, int cols) { row_sum<<<rows, detail::kWarp>>>(x, y, rows, cols); }
)";
  const DefinitionSplice splice = splice_definitions("rows.cu", file, "launch_row_sum", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

namespace detail {
// Sum over a warp.
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

constexpr int kWarp = 32;
}  // namespace detail

__global__ void row_sum(const float* x, float* y, int rows, int cols) {
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += detail::kWarp) s += x[blockIdx.x * cols + c];
  s = detail::warp_sum(s);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

void launch_row_sum(const float* x, float* y, int rows, int cols) { row_sum<<<rows, detail::kWarp>>>(x, y, rows, cols); }
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_row_sum, row_sum replaced by the winner's definitions\n"
                              "warp_sum, kWarp (in namespace detail) added before their first use\n");
}

TEST(NamespaceSplice, NestedNamespacesAreReopenedAtTheDepthTheFileHasThemOpen) {
  const std::string file = R"(#include <cuda_runtime.h>

namespace ops {
namespace impl {

__global__ void fill(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

}  // namespace impl

void launch_fill(float* y, int n) { impl::fill<<<(n + 255) / 256, 256>>>(y, n); }

}  // namespace ops
)";
  // `namespace ops::impl` for the kernel's constant, a helper in a namespace the file lacks.
  const std::string reply = R"(namespace ops::impl {
constexpr int kVec = 4;
}  // namespace ops::impl

namespace ops {
namespace simd {
__device__ float one() { return 1.0f; }
}  // namespace simd

namespace impl {
__global__ void fill(float* y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  for (int v = 0; v < kVec; ++v)
    if (i + v < n) y[i + v] = simd::one();
}
}  // namespace impl

void launch_fill(float* y, int n) { impl::fill<<<(n + 1023) / 1024, 256>>>(y, n); }
}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("fill.cu", file, "ops::launch_fill", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

namespace ops {
namespace simd {
__device__ float one() { return 1.0f; }
}  // namespace simd

namespace impl {

constexpr int kVec = 4;

__global__ void fill(float* y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  for (int v = 0; v < kVec; ++v)
    if (i + v < n) y[i + v] = simd::one();
}

}  // namespace impl

void launch_fill(float* y, int n) { impl::fill<<<(n + 1023) / 1024, 256>>>(y, n); }

}  // namespace ops
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSplice, AReplyWhoseLauncherIsInTheFilesNamespaceKeepsItsHelpersThere) {
  const std::string file = R"(#include <cuda_runtime.h>

namespace ops {
namespace {
__device__ float square(float v) { return v * v; }
}  // namespace

__global__ void squares(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = square(y[i]);
}

void launch_squares(float* y, int n, cudaStream_t stream) { squares<<<(n + 255) / 256, 256, 0, stream>>>(y, n); }
}  // namespace ops
)";
  const std::string reply = R"(namespace ops {
namespace {
__device__ float square(float v) {return v*v;}
constexpr int kUnroll = 4;
}  // namespace

__global__ void squares(float* y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kUnroll;
  for (int u = 0; u < kUnroll; ++u)
    if (i + u < n) y[i + u] = square(y[i + u]);
}

void launch_squares(float* y, int n, cudaStream_t stream) {
  squares<<<(n + 1023) / 1024, 256, 0, stream>>>(y, n);
}
}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("squares.cu", file, "ops::launch_squares", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

namespace ops {
namespace {
__device__ float square(float v) { return v * v; }
}  // namespace

namespace {
constexpr int kUnroll = 4;
}  // namespace

__global__ void squares(float* y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kUnroll;
  for (int u = 0; u < kUnroll; ++u)
    if (i + u < n) y[i + u] = square(y[i + u]);
}

void launch_squares(float* y, int n, cudaStream_t stream) {
  squares<<<(n + 1023) / 1024, 256, 0, stream>>>(y, n);
}
}  // namespace ops
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
}

TEST(NamespaceSplice, AnIncludeTheReplyAddsGoesBeforeTheNamespaceThatUsesIt) {
  const std::string file = R"(#include <cuda_runtime.h>

// Conversions.
namespace ops {

__global__ void to_half(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void launch_to_half(const float* x, float* y, int n) { to_half<<<(n + 255) / 256, 256>>>(x, y, n); }

}  // namespace ops
)";
  const std::string reply = R"(#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace ops {

__global__ void to_half(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __half2float(__float2half(x[i]));
}

void launch_to_half(const float* x, float* y, int n) { to_half<<<(n + 255) / 256, 256>>>(x, y, n); }

}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("half.cu", file, "ops::launch_to_half", reply);
  EXPECT_EQ(splice.text.substr(0, splice.text.find("__global__")),
            "#include <cuda_runtime.h>\n\n#include <cuda_fp16.h>\n\n// Conversions.\nnamespace ops {\n\n");
  EXPECT_EQ(occurrences(splice.text, "#include <cuda_runtime.h>"), 1u);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_to_half, to_half replaced by the winner's definitions\n"
                              "#include <cuda_fp16.h> added before their first use\n");
}
