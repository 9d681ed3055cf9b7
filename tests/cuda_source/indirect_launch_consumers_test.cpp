// What reads or edits a launch site on a launcher's behalf, given a launcher that launches through
// a helper, a function pointer or the runtime API: the tuner's knob readers and transforms offer
// no knob there (and say why), never edit a helper's site for another launcher and never throw;
// the excerpt a model is shown follows the helper the launcher calls, and a winner written so is
// spliced into the repository's file.
#include <gtest/gtest.h>

#include "cuda_source/knobs/kernel_launch_sites.h"
#include "cuda_source/knobs/launch_bounds.h"
#include "cuda_source/knobs/literal_knobs.h"
#include "cuda_source/knobs/tunable_macros.h"
#include "cuda_source/splicing/definition_splice.h"
#include "cuda_source/splicing/launcher_excerpt.h"

using namespace kb::cuda_source;

namespace {

bool any_mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

// launch_softmax reaches rows_kernel's launch through launch_rows, a helper of its own.
const std::string kHelperFile = R"(#include <cuda_runtime.h>

#ifndef BIAS_BLOCK
#define BIAS_BLOCK 256
#endif

__global__ void __launch_bounds__(128) rows_kernel(const float* x, float* y, int rows, int cols) {}
__global__ void bias_kernel(float* y, const float* bias, int n) {}
__global__ void unrelated_kernel(float* y) {}

namespace {
void launch_rows(const float* x, float* y, int rows, int cols) {
  rows_kernel<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
}  // namespace

namespace detail {
inline void add_bias(float* y, const float* bias, int n) {
  bias_kernel<<<(n + BIAS_BLOCK - 1) / BIAS_BLOCK, BIAS_BLOCK>>>(y, bias, n);
}
}  // namespace detail

void launch_softmax(const float* x, float* y, const float* bias, int rows, int cols) {
  launch_rows(x, y, rows, cols);
  detail::add_bias(y, bias, rows * cols);
}

void launch_unrelated(float* y) { unrelated_kernel<<<1, 32>>>(y); }
)";

// A pointer chosen by the size, launched with a literal block.
const std::string kPointerFile = R"(template <int BLOCK>
__global__ void big_kernel(const float* x, float* y, int n) {}
__global__ void small_kernel(const float* x, float* y, int n) {}
void launch_scale(const float* x, float* y, int n, cudaStream_t stream) {
  auto kernel = n > 4096 ? big_kernel<256> : small_kernel;
  kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
)";

const std::string kApiFile = R"(template <typename T> __global__ void rms_norm(const T* x, T* y, int n) {}
__global__ void scale(const float* x, float* y, int n) {}
void launch_norm(const float* x, float* y, int n, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 255) / 256);
  config.blockDim = dim3(256);
  config.stream = stream;
  cudaLaunchKernelEx(&config, rms_norm<float>, x, y, n);
}
void launch_scale(const float* x, float* y, int n, cudaStream_t stream) {
  void* args[] = {&x, &y, &n};
  cudaLaunchKernel((const void*)scale, dim3((n + 127) / 128), dim3(128), args, 0, stream);
}
)";

}  // namespace

TEST(IndirectLaunchConsumers, KnobsOfALauncherThroughAHelperAreNotItsHelpers) {
  LauncherKnobs knobs;
  ASSERT_NO_THROW(knobs = find_launcher_knobs(kHelperFile, "launch_softmax", "t.cu"));
  for (const auto& k : knobs.literals)  // the kernels' own knobs (unroll) could be; no block knob
    EXPECT_FALSE(shapes_block(k.kind)) << k.description();
  EXPECT_TRUE(knobs.arguments.empty());
  EXPECT_TRUE(any_mentions(knobs.not_offered, "through launch_rows")) << knobs.not_offered.size();
  EXPECT_TRUE(any_mentions(knobs.not_offered, "through detail::add_bias"));
  // The helper's own knob edits the helper's text only.
  const LauncherKnobs helper = find_launcher_knobs(kHelperFile, "launch_rows", "t.cu");
  ASSERT_EQ(helper.literals.size(), 1u);
  const size_t begin = kHelperFile.find("void launch_rows"), end = kHelperFile.find("}  // namespace", begin);
  for (const auto& o : helper.literals[0].occurrences) {
    const bool in_helper = o.begin > begin && o.end < end;
    const bool in_launch_bounds = o.end < kHelperFile.find("rows_kernel(");  // the kernel's __launch_bounds__(128)
    EXPECT_TRUE(in_helper || in_launch_bounds) << o.begin;
  }
}

TEST(IndirectLaunchConsumers, LaunchBoundsAreAddedForTheSiteOnlyThroughItsOwnLauncher) {
  std::optional<std::string> bounded;
  ASSERT_NO_THROW(bounded = add_launch_bounds(kHelperFile, "launch_softmax"));
  EXPECT_FALSE(bounded.has_value());
  bounded = add_launch_bounds(kHelperFile, "detail::add_bias");
  ASSERT_TRUE(bounded.has_value());
  EXPECT_NE(bounded->find("__global__ __launch_bounds__(BIAS_BLOCK) void bias_kernel"), std::string::npos);
  EXPECT_FALSE(add_launch_bounds(kPointerFile, "launch_scale").has_value());
  EXPECT_FALSE(add_launch_bounds(kApiFile, "launch_scale").has_value());
  EXPECT_FALSE(add_launch_bounds(kApiFile, "launch_norm").has_value());
}

TEST(IndirectLaunchConsumers, APointersBlockIsNoKnob) {
  LauncherKnobs knobs;
  ASSERT_NO_THROW(knobs = find_launcher_knobs(kPointerFile, "launch_scale", "t.cu"));
  EXPECT_TRUE(knobs.literals.empty());
  EXPECT_TRUE(any_mentions(knobs.not_offered, "function pointer `kernel`"));
  EXPECT_TRUE(any_mentions(knobs.not_offered, "big_kernel, small_kernel"));
  // As a kernel target's launch: the site is found, its knobs are not offered.
  KernelKnobs site;
  ASSERT_NO_THROW(site = find_kernel_knobs(kPointerFile, "small_kernel", "t.cu"));
  ASSERT_TRUE(site.site.has_value());
  EXPECT_EQ(site.site->function, "launch_scale");
  EXPECT_TRUE(site.literals.empty());
  EXPECT_FALSE(site.block.has_value());
  EXPECT_TRUE(any_mentions(site.not_offered, "function pointer"));
}

TEST(IndirectLaunchConsumers, ApiLaunchesAreNoKnob) {
  for (const char* name : {"launch_norm", "launch_scale"}) {
    LauncherKnobs knobs;
    ASSERT_NO_THROW(knobs = find_launcher_knobs(kApiFile, name, "t.cu"));
    EXPECT_TRUE(knobs.literals.empty()) << name;
    EXPECT_TRUE(any_mentions(knobs.not_offered, "()")) << name;
  }
  const KernelKnobs site = find_kernel_knobs(kApiFile, "scale", "t.cu");
  ASSERT_TRUE(site.site.has_value());
  EXPECT_TRUE(site.literals.empty());
  EXPECT_TRUE(any_mentions(site.not_offered, "cudaLaunchKernel()"));
  EXPECT_NO_THROW(detect_tunable_macros(kApiFile));
}

TEST(IndirectLaunchConsumers, AHelpersSiteIsListedOnce) {
  ScanResult scan;
  scan_source(kHelperFile, "t.cu", scan);
  const auto sites = kernel_launch_sites(scan, "rows_kernel");
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].function, "launch_rows");
  const KernelKnobs knobs = find_kernel_knobs(kHelperFile, "rows_kernel", "t.cu");
  ASSERT_TRUE(knobs.block.has_value());
  EXPECT_EQ(*knobs.block, std::vector<int64_t>{128});
}

TEST(IndirectLaunchConsumers, TunableMacrosReadTheHelpersSite) {
  const auto macros = detect_tunable_macros(kHelperFile);
  ASSERT_EQ(macros.size(), 1u);
  EXPECT_EQ(macros[0].name, "BIAS_BLOCK");
  EXPECT_EQ(macros[0].role, MacroRole::block_size);
}

TEST(IndirectLaunchConsumers, TheExcerptFollowsTheHelper) {
  const auto excerpt = launcher_excerpt(kHelperFile, "launch_softmax", "t.cu");
  ASSERT_TRUE(excerpt.has_value());
  EXPECT_NE(excerpt->find("void launch_softmax"), std::string::npos);
  EXPECT_NE(excerpt->find("void launch_rows"), std::string::npos);
  EXPECT_NE(excerpt->find("inline void add_bias"), std::string::npos);
  EXPECT_NE(excerpt->find("namespace detail"), std::string::npos);
  EXPECT_NE(excerpt->find("__global__ void __launch_bounds__(128) rows_kernel"), std::string::npos);
  EXPECT_NE(excerpt->find("bias_kernel"), std::string::npos);
  EXPECT_NE(excerpt->find("#define BIAS_BLOCK 256"), std::string::npos);
  EXPECT_EQ(excerpt->find("unrelated_kernel"), std::string::npos);
  // The pointer's kernels are shown with the launcher that can launch them.
  const auto pointer = launcher_excerpt(kPointerFile, "launch_scale", "t.cu");
  ASSERT_TRUE(pointer.has_value());
  EXPECT_NE(pointer->find("big_kernel(const float* x"), std::string::npos);
  EXPECT_NE(pointer->find("small_kernel(const float* x"), std::string::npos);
}

TEST(IndirectLaunchConsumers, AWinnerThatLaunchesThroughAHelperIsSpliced) {
  const std::string base = R"(#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 127) / 128, 128>>>(x, y, n); }

int unrelated() { return 1; }
)";
  const std::string winner = R"(#include <cuda_runtime.h>

template <int VEC>
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    if (i + v < n) y[i + v] = 2.0f * x[i + v];
}

namespace detail {
template <int VEC>
void launch_vec(const float* x, float* y, int n) {
  constexpr int kThreads = 256;
  scale_kernel<VEC><<<(n / VEC + kThreads - 1) / kThreads, kThreads>>>(x, y, n);
}
}  // namespace detail

void launch_scale(const float* x, float* y, int n) {
  if (n % 4 == 0) detail::launch_vec<4>(x, y, n);
  else detail::launch_vec<1>(x, y, n);
}
)";
  DefinitionSplice spliced;
  ASSERT_NO_THROW(spliced = splice_definitions("scale.cu", base, "launch_scale", winner));
  EXPECT_NE(spliced.text.find("void launch_vec(const float* x"), std::string::npos);
  EXPECT_NE(spliced.text.find("detail::launch_vec<4>(x, y, n)"), std::string::npos);
  EXPECT_NE(spliced.text.find("template <int VEC>\n__global__ void scale_kernel"), std::string::npos);
  EXPECT_NE(spliced.text.find("int unrelated() { return 1; }"), std::string::npos);
  EXPECT_EQ(spliced.text.find("scale_kernel<<<(n + 127) / 128, 128>>>"), std::string::npos);
}
