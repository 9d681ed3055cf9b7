// Splicing a reply written the way people and models write C++ into the whole file: helpers in
// anonymous, named and nested namespaces, templates and their specializations, changed constants
// and aliases, includes. Each spliced file is compared whole and compiled by the host compiler.
#include <gtest/gtest.h>

#include "cuda_source/definition_splice.h"
#include "tests/cuda_source/host_syntax_check.h"

using kb::cuda_source::DefinitionSplice;
using kb::cuda_source::splice_definitions;
using kb::testing::host_syntax_errors;

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string edits_of(const DefinitionSplice& splice) {
  std::string out;
  for (const auto& e : splice.edits) out += e + "\n";
  return out;
}

}  // namespace

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
