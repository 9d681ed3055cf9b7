// Splicing a reply that redefines what the file defines (a constant, an alias, a helper, one
// overload), repeats it, or adds templates and their specializations beside the file's: each
// redefinition replaces the file's in place, a copy is not carried, and a definition left unused
// and unreachable from outside the file goes. Each spliced file is compiled by the host compiler.
#include <gtest/gtest.h>

#include "cuda_source/splicing/definition_splice.h"
#include "tests/cuda_source/host_syntax_check.h"
#include "tests/cuda_source/splice_test_support.h"

using kb::cuda_source::DefinitionSplice;
using kb::cuda_source::splice_definitions;
using kb::testing::edits_of;
using kb::testing::host_syntax_errors;
using kb::testing::occurrences;

TEST(SpliceRedefinitions, ATemplateHelperAndItsSpecializationsKeepTheirOrder) {
  const std::string file = R"(#include <cuda_runtime.h>

template <typename T>
struct Traits {
  static constexpr int kWidth = 1;
};

__global__ void gather(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x * Traits<float>::kWidth]; }

void launch_gather(const float* x, float* y) { gather<<<1, 32>>>(x, y); }
)";
  const std::string reply = R"(template <typename T>
struct Traits {
    static constexpr int kWidth = 1;
};

template <typename T>
struct Traits<T*> {
  static constexpr int kWidth = 2;
};

template <int TILE>
__device__ float load(const float* p) { return p[TILE]; }

template <>
__device__ float load<0>(const float* p) { return *p; }

__global__ void gather(const float* x, float* y) {
  y[threadIdx.x] = load<0>(x + threadIdx.x * Traits<float*>::kWidth) + load<1>(x);
}

void launch_gather(const float* x, float* y) { gather<<<1, 32>>>(x, y); }
)";
  const DefinitionSplice splice = splice_definitions("gather.cu", file, "launch_gather", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

template <typename T>
struct Traits {
  static constexpr int kWidth = 1;
};

template <typename T>
struct Traits<T*> {
  static constexpr int kWidth = 2;
};

template <int TILE>
__device__ float load(const float* p) { return p[TILE]; }

template <>
__device__ float load<0>(const float* p) { return *p; }

__global__ void gather(const float* x, float* y) {
  y[threadIdx.x] = load<0>(x + threadIdx.x * Traits<float*>::kWidth) + load<1>(x);
}

void launch_gather(const float* x, float* y) { gather<<<1, 32>>>(x, y); }
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_gather, gather replaced by the winner's definitions\n"
                              "Traits, load added before their first use\n");
}

TEST(SpliceRedefinitions, AChangedConstantIsReplacedInPlaceAndAConstantNoLongerUsedGoes) {
  const std::string file = R"(#include <cuda_runtime.h>

namespace {
constexpr int kBlock = 128;  // one row per thread
constexpr int kOldUnroll = 2;
constexpr int kKeep = 7;
}  // namespace

__device__ float twice(float v) { return 2 * v; }

__global__ void scale(float* y, int n) {
  int i = blockIdx.x * kBlock + threadIdx.x;
#pragma unroll kOldUnroll
  for (int u = 0; u < kOldUnroll; ++u)
    if (i < n) y[i] = twice(y[i]);
}

void launch_scale(float* y, int n) { scale<<<(n + kBlock - 1) / kBlock, kBlock>>>(y, n); }

int keep() { return kKeep; }
)";
  const std::string reply = R"(namespace {
constexpr int kBlock = 256;  // eight warps
constexpr int kItems = 4;
}  // namespace

__global__ void scale(float* y, int n) {
  int i = (blockIdx.x * kBlock + threadIdx.x) * kItems;
  for (int u = 0; u < kItems; ++u)
    if (i + u < n) y[i + u] *= 2;
}

void launch_scale(float* y, int n) { scale<<<(n + kBlock * kItems - 1) / (kBlock * kItems), kBlock>>>(y, n); }
)";
  const DefinitionSplice splice = splice_definitions("scale.cu", file, "launch_scale", reply);
  const std::string expected = R"(#include <cuda_runtime.h>

namespace {
constexpr int kBlock = 256;  // eight warps
constexpr int kKeep = 7;
}  // namespace

__device__ float twice(float v) { return 2 * v; }

namespace {
constexpr int kItems = 4;
}  // namespace

__global__ void scale(float* y, int n) {
  int i = (blockIdx.x * kBlock + threadIdx.x) * kItems;
  for (int u = 0; u < kItems; ++u)
    if (i + u < n) y[i + u] *= 2;
}

void launch_scale(float* y, int n) { scale<<<(n + kBlock * kItems - 1) / (kBlock * kItems), kBlock>>>(y, n); }

int keep() { return kKeep; }
)";
  EXPECT_EQ(splice.text, expected);
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  // twice() has external linkage: another file may call it, so it stays though unused here.
  EXPECT_EQ(edits_of(splice), "launch_scale, scale, kBlock replaced by the winner's definitions\n"
                              "kItems (in the anonymous namespace) added before their first use\n"
                              "kOldUnroll removed (no longer used)\n");
}

TEST(SpliceRedefinitions, AChangedAliasReplacesTheFilesAndANewTypedefIsCarried) {
  const std::string file = R"(#include <cuda_runtime.h>

namespace ops {
using acc_t = float;

__global__ void sum(const float* x, float* y, int n) {
  acc_t s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  *y = s;
}

void launch_sum(const float* x, float* y, int n) { sum<<<1, 1>>>(x, y, n); }
}  // namespace ops
)";
  const std::string reply = R"(namespace ops {
using acc_t = double;
typedef float4 vec_t;

__global__ void sum(const float* x, float* y, int n) {
  acc_t s = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    vec_t v = *reinterpret_cast<const vec_t*>(x + i);
    s += v.x + v.y + v.z + v.w;
  }
  for (; i < n; ++i) s += x[i];
  *y = static_cast<float>(s);
}

void launch_sum(const float* x, float* y, int n) { sum<<<1, 1>>>(x, y, n); }
}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("sum.cu", file, "ops::launch_sum", reply);
  EXPECT_EQ(occurrences(splice.text, "using acc_t"), 1u) << splice.text;
  EXPECT_NE(splice.text.find("namespace ops {\nusing acc_t = double;\n\ntypedef float4 vec_t;\n\n__global__ void sum("),
            std::string::npos)
      << splice.text;
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_sum, sum, acc_t replaced by the winner's definitions\n"
                              "vec_t (in namespace ops) added before their first use\n");
}

TEST(SpliceRedefinitions, AHelperTheFileHasIdenticallyIsNotCarriedAgain) {
  const std::string file = R"(namespace {
__device__ float sq(float v) { return v * v; }
}  // namespace

__global__ void k(float* y) { y[threadIdx.x] = sq(y[threadIdx.x]); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  const std::string reply = R"(namespace {
__device__ float sq(float v) {
  return v * v;
}
}  // namespace

__global__ void k(float* y) { y[threadIdx.x] = sq(y[threadIdx.x]) + 1; }

void launch_k(float* y) { k<<<1, 64>>>(y); }
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "launch_k", reply);
  EXPECT_EQ(occurrences(splice.text, "float sq("), 1u) << splice.text;
  EXPECT_EQ(splice.text.substr(0, splice.text.find("__global__")), file.substr(0, file.find("__global__")));
  EXPECT_EQ(host_syntax_errors(splice.text), "");
  EXPECT_EQ(edits_of(splice), "launch_k, k replaced by the winner's definitions\n");
}

TEST(SpliceRedefinitions, ARewrittenHelperInANamespaceReplacesTheFilesOverloadOnly) {
  const std::string file = R"(namespace ops {
// Clamps to [0, 1].
__device__ float clamp01(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
__device__ int clamp01(int v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

__global__ void k(float* y) { y[threadIdx.x] = clamp01(y[threadIdx.x]); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
}  // namespace ops
)";
  const std::string reply = R"(namespace ops {
__device__ float clamp01(const float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }

__global__ void k(float* y) { y[threadIdx.x] = clamp01(y[threadIdx.x] * 2); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
}  // namespace ops
)";
  const DefinitionSplice splice = splice_definitions("k.cu", file, "ops::launch_k", reply);
  EXPECT_EQ(splice.text, R"(namespace ops {
__device__ float clamp01(const float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
__device__ int clamp01(int v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

__global__ void k(float* y) { y[threadIdx.x] = clamp01(y[threadIdx.x] * 2); }

void launch_k(float* y) { k<<<1, 32>>>(y); }
}  // namespace ops
)");
  EXPECT_EQ(edits_of(splice), "launch_k, k, clamp01 replaced by the winner's definitions\n");
}
