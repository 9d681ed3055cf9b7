// The excerpt of a long file that a model is shown (one launcher, its kernels and what they
// read), and the splice that puts the model's reply back into the whole file: an unrelated kernel
// is neither shown nor touched.
#include "cuda_source/splicing/launcher_excerpt.h"

#include <gtest/gtest.h>

#include "cuda_source/splicing/definition_splice.h"

using namespace kb::cuda_source;

namespace {

// A file of many kernels; launch_scale is the one being optimized.
const std::string kLongFile = R"(#include <cuda_runtime.h>
#include <cstdint>

#ifndef SCALE_BLOCK
#define SCALE_BLOCK 128
#endif

#define UNRELATED_BLOCK 64
#define SCALE_FACTOR(p) ((p).factor * 2.0f)

struct ScaleParams {
  float factor;
};

struct OtherParams {
  int stride;
};

__device__ float other_helper(float v) { return v * 3.0f; }

// Scales one element; used by the scale kernel only.
__device__ float scale_one(float v, ScaleParams p) { return v * SCALE_FACTOR(p); }

__global__ void add_one(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += other_helper(1.0f);
}

void launch_add_one(float* y, int n) { add_one<<<(n + UNRELATED_BLOCK - 1) / UNRELATED_BLOCK, UNRELATED_BLOCK>>>(y, n); }

// y = factor * 2 * y, one element per thread.
__global__ void scale_kernel(float* y, ScaleParams p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale_one(y[i], p);
}

void launch_scale(float* y, float factor, int n) {
  ScaleParams p{factor};
  scale_kernel<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(y, p, n);
}

__global__ void strided(float* y, OtherParams q, int n) {
  for (int i = threadIdx.x; i < n; i += q.stride) y[i] = 0;
}

void launch_strided(float* y, int stride, int n) { strided<<<1, 32>>>(y, OtherParams{stride}, n); }
)";

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(LauncherExcerpt, ShowsTheLauncherItsKernelsAndWhatTheyReadInFileOrder) {
  auto excerpt = launcher_excerpt(kLongFile, "launch_scale", "ops.cu");
  ASSERT_TRUE(excerpt);
  const std::string expected = R"(#include <cuda_runtime.h>
#include <cstdint>
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 128
#endif
#define SCALE_FACTOR(p) ((p).factor * 2.0f)

struct ScaleParams {
  float factor;
};

// Scales one element; used by the scale kernel only.
__device__ float scale_one(float v, ScaleParams p) { return v * SCALE_FACTOR(p); }

// y = factor * 2 * y, one element per thread.
__global__ void scale_kernel(float* y, ScaleParams p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale_one(y[i], p);
}

void launch_scale(float* y, float factor, int n) {
  ScaleParams p{factor};
  scale_kernel<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(y, p, n);
}
)";
  EXPECT_EQ(*excerpt, expected);
  EXPECT_FALSE(has(*excerpt, "add_one"));
  EXPECT_FALSE(has(*excerpt, "UNRELATED_BLOCK"));
  EXPECT_FALSE(has(*excerpt, "OtherParams"));
  EXPECT_FALSE(has(*excerpt, "other_helper"));
}

TEST(LauncherExcerpt, ANamespaceKeepsOnlyWhatTheLauncherNeeds) {
  const std::string text = R"(#include <cuda_runtime.h>

namespace ops {
namespace {
constexpr int kBlock = 256;
constexpr int kUnused = 7;
}  // namespace

__global__ void unrelated(int* x) { x[0] = kUnused; }

__global__ void fill(float* y, int n) {
  int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

void launch_fill(float* y, int n, cudaStream_t s) { fill<<<(n + kBlock - 1) / kBlock, kBlock, 0, s>>>(y, n); }
}  // namespace ops
)";
  auto excerpt = launcher_excerpt(text, "ops::launch_fill", "fill.cu");
  ASSERT_TRUE(excerpt);
  EXPECT_TRUE(has(*excerpt, "namespace ops {\n")) << *excerpt;
  EXPECT_TRUE(has(*excerpt, "constexpr int kBlock = 256;")) << *excerpt;
  EXPECT_TRUE(has(*excerpt, "__global__ void fill(")) << *excerpt;
  EXPECT_TRUE(has(*excerpt, "void launch_fill(")) << *excerpt;
  EXPECT_FALSE(has(*excerpt, "unrelated")) << *excerpt;
  EXPECT_FALSE(has(*excerpt, "kUnused")) << *excerpt;
  // Every brace it opens it closes: the excerpt reads as code.
  EXPECT_EQ(std::count(excerpt->begin(), excerpt->end(), '{'), std::count(excerpt->begin(), excerpt->end(), '}'));
  EXPECT_FALSE(launcher_excerpt(text, "launch_missing", "fill.cu"));
}

TEST(LauncherExcerpt, ConditionalBlocksAreShownOnlyAroundWhatIsShown) {
  const std::string text = R"(#include <cuda_fp16.h>
#if defined(USE_OTHER)
__global__ void other(float* y) { y[0] = 0; }
void launch_other(float* y) { other<<<1, 1>>>(y); }
#endif
#if __CUDACC_VER_MAJOR__ >= 12
__global__ void k(float* y) { y[threadIdx.x] = 1; }
#else
__global__ void k(float* y) { y[threadIdx.x] = 2; }
#endif
void launch_k(float* y) { k<<<1, 32>>>(y); }
)";
  auto excerpt = launcher_excerpt(text, "launch_k", "k.cu");
  ASSERT_TRUE(excerpt);
  EXPECT_FALSE(has(*excerpt, "USE_OTHER")) << *excerpt;
  EXPECT_TRUE(has(*excerpt, "#if __CUDACC_VER_MAJOR__ >= 12\n__global__ void k")) << *excerpt;
  EXPECT_TRUE(has(*excerpt, "#endif")) << *excerpt;
}

TEST(DefinitionSplice, AReplyOfTheExcerptBecomesTheWholeFileWithUnrelatedKernelsByteIdentical) {
  // What a model writes when shown the excerpt: a new helper, the kernel and the launcher, the
  // includes copied, the block size changed.
  const std::string reply = R"(#include <cuda_runtime.h>
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 256
#endif

__device__ __forceinline__ float4 scale4(float4 v, float f) { return make_float4(v.x * f, v.y * f, v.z * f, v.w * f); }

__global__ void scale_kernel(float* y, ScaleParams p, int n) {
  const float f = p.factor * 2.0f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= f;
}

void launch_scale(float* y, float factor, int n) {
  ScaleParams p{factor};
  scale_kernel<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(y, p, n);
}
)";
  DefinitionSplice splice = splice_definitions("ops.cu", kLongFile, "launch_scale", reply);
  ASSERT_EQ(splice.macro_edits, std::vector<std::string>{"SCALE_BLOCK=256"});
  std::vector<std::string> missing;
  const std::string whole = apply_macro_defaults(splice.text, splice.macro_edits, missing);
  EXPECT_TRUE(missing.empty());

  // Everything before the scale kernel's comment and after the launcher is as it was, but for the
  // macro's value.
  const size_t head = kLongFile.find("// y = factor * 2 * y");
  const size_t tail = kLongFile.find("__global__ void strided");
  std::string head_expected = kLongFile.substr(0, head);
  head_expected.replace(head_expected.find("SCALE_BLOCK 128"), 15, "SCALE_BLOCK 256");
  EXPECT_EQ(whole.substr(0, head), head_expected);
  EXPECT_EQ(whole.substr(whole.size() - (kLongFile.size() - tail)), kLongFile.substr(tail));
  // The unrelated kernels and their launchers, untouched; the new code in place.
  for (const char* unrelated : {"__global__ void add_one(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + "
                                "threadIdx.x;\n  if (i < n) y[i] += other_helper(1.0f);\n}\n",
                                "void launch_strided(float* y, int stride, int n) { strided<<<1, 32>>>(y, "
                                "OtherParams{stride}, n); }\n"})
    EXPECT_TRUE(has(whole, unrelated)) << unrelated;
  EXPECT_TRUE(has(whole, "__device__ __forceinline__ float4 scale4(")) << whole;
  EXPECT_TRUE(has(whole, "if (i < n) y[i] *= f;")) << whole;
  EXPECT_FALSE(has(whole, "y[i] = scale_one(y[i], p);")) << whole;
  EXPECT_EQ(std::count(whole.begin(), whole.end(), '#'), std::count(kLongFile.begin(), kLongFile.end(), '#'));
  EXPECT_NE(splice.edits.front().find("launch_scale, scale_kernel replaced"), std::string::npos)
      << splice.edits.front();
}

TEST(DefinitionSplice, AReplyWithoutTheLauncherOrItsKernelIsRefusedWithTheReason) {
  try {
    splice_definitions("ops.cu", kLongFile, "launch_scale", "__global__ void scale_kernel(float* y) {}\n");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no definition of the launcher 'launch_scale'"), std::string::npos)
        << e.what();
  }
  try {
    splice_definitions("ops.cu", kLongFile, "launch_scale",
                       "void launch_scale(float* y, float f, int n) { k2<<<1, 1>>>(y); }\n");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("launches 'k2' but does not define it"), std::string::npos) << e.what();
  }
}

TEST(DefinitionSplice, AHelperTheReplyChangesReplacesTheFilesOwnInsteadOfADuplicate) {
  // The excerpt showed scale_one; the model changed it and copied ScaleParams unchanged.
  const std::string reply = R"(struct ScaleParams {
  float factor;
};

__device__ float scale_one(float v, ScaleParams p) { return __fmul_rn(v, SCALE_FACTOR(p)); }

__global__ void scale_kernel(float* y, ScaleParams p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = scale_one(y[i], p);
}

void launch_scale(float* y, float factor, int n) {
  ScaleParams p{factor};
  scale_kernel<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(y, p, n);
}
)";
  DefinitionSplice splice = splice_definitions("ops.cu", kLongFile, "launch_scale", reply);
  const std::string& whole = splice.text;
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = whole.find(what); at != std::string::npos; at = whole.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("float scale_one("), 1u) << whole;
  EXPECT_EQ(count("struct ScaleParams"), 1u) << whole;
  EXPECT_TRUE(has(whole, "__device__ float scale_one(float v, ScaleParams p) { return __fmul_rn(v, SCALE_FACTOR(p)); }"))
      << whole;
  // The helper's comment goes with its old definition, as a kernel's does; the unrelated helper stays.
  EXPECT_FALSE(has(whole, "// Scales one element")) << whole;
  EXPECT_TRUE(has(whole, "__device__ float other_helper(float v) { return v * 3.0f; }\n")) << whole;
  EXPECT_NE(splice.edits.front().find("scale_one"), std::string::npos) << splice.edits.front();
  // Everything from the first unrelated kernel to the scale kernel's comment is as it was.
  const size_t from = kLongFile.find("__global__ void add_one");
  const size_t to = kLongFile.find("// y = factor");
  EXPECT_TRUE(has(whole, kLongFile.substr(from, to - from))) << whole;
}
