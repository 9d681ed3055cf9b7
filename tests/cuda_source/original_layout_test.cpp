// A winner's whole file as the PR's text: the original's layout where the winner changed only
// layout, and never a definition other files can reach deleted as a side effect.
#include "cuda_source/splicing/original_layout.h"

#include <gtest/gtest.h>

namespace {

using kb::cuda_source::describe_definition_changes;
using kb::cuda_source::keep_original_layout;

const std::string kOriginal = R"(// ops.cu: elementwise ops of the model.
// Copyright the authors.
#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

void launch_scale(const float* x, float* y, float a, int n, cudaStream_t stream) {
    scale_kernel<<<(n + 31) / 32, 32, 0, stream>>>(x, y, a, n);
}

// Used by the training loop in train.cu.
void launch_other(float* y, int n, cudaStream_t stream) {
    cudaMemsetAsync(y, 0, n * sizeof(float), stream);
}
)";

// What a model writes back when asked for the whole file: its own indentation, the header and a
// doc comment dropped, the unrelated launcher dropped, a final newline the file may not have.
const std::string kCandidate = R"(#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) scale_kernel(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i];
}

void launch_scale(const float* x, float* y, float a, int n, cudaStream_t stream) {
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, a, n);
}
)";

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(OriginalLayout, CommentsAndReachableDefinitionsTheWinnerDroppedAreKept) {
  auto laid = keep_original_layout(kOriginal, kCandidate, "ops.cu");
  EXPECT_EQ(laid.text.rfind("// ops.cu: elementwise ops of the model.\n// Copyright the authors.\n#include", 0), 0u)
      << laid.text;
  // The winner's code, as it wrote it.
  EXPECT_NE(laid.text.find("  for (; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i];\n"), std::string::npos);
  EXPECT_NE(laid.text.find("scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>"), std::string::npos);
  // launch_other is not static: another file may call it, so it stays, after launch_scale.
  ASSERT_EQ(laid.restored, std::vector<std::string>{"launch_other"});
  EXPECT_EQ(count(laid.text, "void launch_other(float* y, int n, cudaStream_t stream) {"), 1u);
  EXPECT_LT(laid.text.find("void launch_scale"), laid.text.find("void launch_other"));
  EXPECT_EQ(laid.comment_lines_kept, 2u);
}

TEST(OriginalLayout, LinesChangedOnlyInWhitespaceAreTheOriginals) {
  // The launcher re-indented but unchanged; the kernel changed.
  std::string candidate = kOriginal;
  candidate.replace(candidate.find("    scale_kernel<<<"), 4, "  ");
  candidate.replace(candidate.find("    if (i < n)"), std::string("    if (i < n) y[i] = a * x[i];").size(),
                    "  if (i < n) y[i] = a * __ldg(&x[i]);");
  auto laid = keep_original_layout(kOriginal, candidate, "ops.cu");
  std::string expected = kOriginal;
  expected.replace(expected.find("    if (i < n) y[i] = a * x[i];"),
                   std::string("    if (i < n) y[i] = a * x[i];").size(), "  if (i < n) y[i] = a * __ldg(&x[i]);");
  EXPECT_EQ(laid.text, expected);
  EXPECT_EQ(laid.whitespace_lines_kept, 1u);
  EXPECT_TRUE(laid.restored.empty());
}

TEST(OriginalLayout, TheOriginalsMissingFinalNewlineAndCrlfAreKept) {
  std::string original = "#include <cuda_runtime.h>\r\n__global__ void k(float* y) { y[0] = 1; }\r\n"
                         "void launch(float* y) { k<<<1, 1>>>(y); }";
  std::string candidate = "#include <cuda_runtime.h>\n__global__ void k(float* y) { y[0] = 2; }\n"
                          "void launch(float* y) { k<<<1, 1>>>(y); }\n";
  auto laid = keep_original_layout(original, candidate, "k.cu");
  EXPECT_EQ(laid.text, "#include <cuda_runtime.h>\r\n__global__ void k(float* y) { y[0] = 2; }\r\n"
                       "void launch(float* y) { k<<<1, 1>>>(y); }");
}

TEST(OriginalLayout, AFinalNewlineTheOriginalHasIsKept) {
  std::string original = "__global__ void k(float* y) { y[0] = 1; }\n";
  auto laid = keep_original_layout(original, "__global__ void k(float* y) { y[0] = 2; }", "k.cu");
  EXPECT_EQ(laid.text, "__global__ void k(float* y) { y[0] = 2; }\n");
}

TEST(OriginalLayout, OnlyDefinitionsOtherFilesCanReachArePutBack) {
  std::string original = R"(#include <cuda_runtime.h>
namespace {
constexpr int kThreads = 32;
__global__ void old_kernel(float* y) { y[threadIdx.x] = 0; }
}  // namespace
static void old_helper() {}
template <int B> void old_template() {}
inline void old_inline() {}
namespace ops {
__global__ void public_kernel(float* y) { y[0] = 1; }
void launch(float* y) { old_kernel<<<1, kThreads>>>(y); }
}  // namespace ops
)";
  std::string candidate = R"(#include <cuda_runtime.h>
namespace {
constexpr int kThreads = 256;
__global__ void new_kernel(float* y) { y[threadIdx.x] = 0; }
}  // namespace
namespace ops {
void launch(float* y) { new_kernel<<<1, kThreads>>>(y); }
}  // namespace ops
)";
  auto laid = keep_original_layout(original, candidate, "ops.cu");
  ASSERT_EQ(laid.restored, std::vector<std::string>{"ops::public_kernel"});
  EXPECT_NE(laid.text.find(
                "namespace ops {\n__global__ void public_kernel(float* y) { y[0] = 1; }\n}  // namespace ops"),
            std::string::npos)
      << laid.text;
  for (const char* gone : {"old_kernel", "old_helper", "old_template", "old_inline"})
    EXPECT_EQ(laid.text.find(gone), std::string::npos) << gone;
}

TEST(OriginalLayout, EqualTextsStayEqual) {
  auto laid = keep_original_layout(kOriginal, kOriginal, "ops.cu");
  EXPECT_EQ(laid.text, kOriginal);
  EXPECT_TRUE(laid.restored.empty());
}

TEST(DefinitionChanges, NamesWhatWasReplacedAddedAndRemoved) {
  std::string original = R"(#include <cuda_runtime.h>
namespace {
constexpr int kThreads = 32;
__global__ void naive_kernel(float* y) { y[threadIdx.x] = 0; }
}  // namespace
void launch(float* y) { naive_kernel<<<1, kThreads>>>(y); }
)";
  std::string updated = R"(#include <cuda_runtime.h>
namespace {
constexpr int kThreads = 256;
__global__ void tiled_kernel(float* y) { y[threadIdx.x] = 0; }
}  // namespace
namespace detail {
template <int B> void launch_tiled(float* y) { tiled_kernel<<<1, B>>>(y); }
}  // namespace detail
void launch(float* y) { detail::launch_tiled<kThreads>(y); }
)";
  auto edits = describe_definition_changes(original, updated, "g.cu");
  EXPECT_EQ(edits, (std::vector<std::string>{"launch replaced by the winner's definition",
                                             "new tiled_kernel, detail::launch_tiled added",
                                             "naive_kernel removed (no longer used)"}))
      << ::testing::PrintToString(edits);
  EXPECT_TRUE(describe_definition_changes(original, original, "g.cu").empty());
}

}  // namespace
