// The PR's text from a winner on the real example sources: a macro default edited in place, and a
// winner's whole file laid out as the original, with the definitions other files can reach kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bot/change/source_splicer.h"
#include "search/types/search_types.h"
#include "tests/bot/git_fixture.h"

namespace {

using kb::Variant;
using kb::bot::make_source_change;
using kb::testing::read_text;

std::string example(const std::string& name) { return read_text(std::string(KB_SOURCE_DIR) + "/examples/src/" + name); }

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(SourceSplicer, MacroDefaultIsEditedInPlace) {
  std::string original = example("saxpy.cu");
  auto change = make_source_change("src/saxpy.cu", original, "launch_saxpy",
                                   Variant{original, {"SAXPY_BLOCK=256"}, {}, ""});
  std::string expected = original;
  expected.replace(expected.find("#define SAXPY_BLOCK 32"), 22, "#define SAXPY_BLOCK 256");
  EXPECT_EQ(change.updated, expected);
  EXPECT_TRUE(change.notes.empty());
  ASSERT_EQ(change.edits.size(), 1u);
  EXPECT_EQ(change.edits[0], "the default of SAXPY_BLOCK (32 -> 256)");
  EXPECT_NE(change.patch.find("--- a/src/saxpy.cu"), std::string::npos);
  EXPECT_NE(change.patch.find("\n-#define SAXPY_BLOCK 32\n+#define SAXPY_BLOCK 256\n"), std::string::npos)
      << change.patch;
}

TEST(SourceSplicer, EmptyVariantSourceMeansTheOriginal) {
  std::string original = example("transpose.cu");
  auto change = make_source_change("src/transpose.cu", original, "launch_transpose",
                                   Variant{"", {"TRANSPOSE_BLOCK_X=32", "TRANSPOSE_BLOCK_Y=8"}, {}, ""});
  std::string expected = original;
  expected.replace(expected.find("#define TRANSPOSE_BLOCK_X 8"), 27, "#define TRANSPOSE_BLOCK_X 32");
  EXPECT_EQ(change.updated, expected);  // Y is 8 already: untouched
  EXPECT_EQ(change.edits.size(), 1u);
}

TEST(SourceSplicer, DefineFormattingAndTrailingCommentAreKept) {
  std::string text =
      "#ifndef TILE\n#  define TILE\t 16   // tile edge\n#endif\n__global__ void k(){}\nvoid go(){k<<<1,1>>>();}\n";
  std::vector<std::string> missing;
  auto out = kb::bot::apply_macro_defaults(text, {"TILE=32", "NOPE=1"}, missing);
  EXPECT_EQ(
      out,
      "#ifndef TILE\n#  define TILE\t 32   // tile edge\n#endif\n__global__ void k(){}\nvoid go(){k<<<1,1>>>();}\n");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "NOPE");
}

TEST(SourceSplicer, FlagsAndMissingMacrosBecomeNotesNotSilence) {
  std::string original = example("saxpy.cu");
  auto change = make_source_change("src/saxpy.cu", original, "launch_saxpy",
                                   Variant{original, {"SAXPY_UNROLL=4"}, {"--use_fast_math", "-Xptxas=-O3"}, ""});
  EXPECT_TRUE(change.empty());
  ASSERT_EQ(change.notes.size(), 2u);
  EXPECT_NE(change.notes[0].find("-DSAXPY_UNROLL=4"), std::string::npos) << change.notes[0];
  EXPECT_NE(change.notes[1].find("`--use_fast_math -Xptxas=-O3`"), std::string::npos) << change.notes[1];
  EXPECT_NE(change.notes[1].find("does not change the build"), std::string::npos);
}

// The winner of the stored saxpy search: new kernels (float4 body + scalar tail) and launcher,
// plus SAXPY_BLOCK=256 as a define. Its whole file is the PR's text; the old kernel, which other
// files could launch, stays.
TEST(SourceSplicer, TheWinnersVerifiedFileIsThePrsTextAndReachableKernelsStay) {
  std::string original = example("saxpy.cu");
  auto result = nlohmann::json::parse(read_text(std::string(KB_SOURCE_DIR) + "/tests/bot/data/saxpy_result.json"))
                    .get<kb::search::SearchResult>();
  const Variant& winner = result.best()->variant;
  auto change = make_source_change("src/saxpy.cu", original, "launch_saxpy", winner);

  // The winner's text with its define applied, and the old kernel kept (with its comment) where
  // it stood, after the macro block.
  const std::string& w = winner.source;
  std::string old_kernel = original.substr(original.find("// Slow:"),
                                           original.find("\n}\n", original.find("// Slow:")) + 3 -
                                               original.find("// Slow:"));
  std::string expected = w;
  expected.insert(expected.find("// Four elements"), old_kernel + "\n");
  expected.replace(expected.find("#define SAXPY_BLOCK 32"), 22, "#define SAXPY_BLOCK 256");
  EXPECT_EQ(change.updated, expected) << change.patch;
  EXPECT_EQ(count(change.updated, "#ifndef SAXPY_BLOCK"), 1u);
  EXPECT_EQ(count(change.updated, "__global__ void saxpy_kernel("), 1u);
  EXPECT_EQ(change.patch.find("-#include"), std::string::npos) << "includes must not move";
  EXPECT_EQ(change.patch.find("-__global__ void saxpy_kernel("), std::string::npos) << change.patch;
  EXPECT_EQ(change.edits,
            (std::vector<std::string>{"launch_saxpy replaced by the winner's definition",
                                      "new saxpy_vec4_kernel, saxpy_tail_kernel added",
                                      "saxpy_kernel kept: the winner no longer defines it, but code in other files may "
                                      "call it",
                                      "the default of SAXPY_BLOCK (32 -> 256)"}))
      << ::testing::PrintToString(change.edits);
  std::vector<std::string> missing;
  EXPECT_EQ(change.verbatim, kb::bot::apply_macro_defaults(w, {"SAXPY_BLOCK=256"}, missing));
}

// The candidate dropped the file's macro blocks and rewrote its header line: that is the code
// that was verified, so the PR says so (macros of a .cu file reach no other file).
TEST(SourceSplicer, WhatTheWinnerRemovedOrRewroteIsItsChange) {
  std::string original = example("transpose.cu");
  std::string candidate = R"(// transpose, tiled.
#include <cuda_runtime.h>

#include "examples/kernels.h"

#define TILE 32

// Tiled through shared memory: coalesced reads and writes.
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
  __syncthreads();
  int oc = blockIdx.y * TILE + threadIdx.x, orow = blockIdx.x * TILE + threadIdx.y;
  if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}

void launch_transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
)";
  auto change = make_source_change("src/transpose.cu", original, "launch_transpose", Variant{candidate, {}, {}, ""});
  EXPECT_EQ(change.updated, candidate) << change.patch;
  EXPECT_EQ(change.edits, (std::vector<std::string>{"transpose_kernel, launch_transpose replaced by the winner's "
                                                    "definitions",
                                                    "1 other top-level piece (types, constants, macros, includes) "
                                                    "added or changed"}))
      << ::testing::PrintToString(change.edits);
}

// A model's rewrite of a whole file: its own indentation for unchanged lines, the file's header
// comment and doc comments dropped, new includes, a namespace alias and a helper. The PR keeps
// the original's layout and comments and carries everything new where the model put it.
TEST(SourceSplicer, NewHelpersAndIncludesStayWhereTheWinnerPutThemWithTheOriginalsComments) {
  std::string original = example("layernorm.cu");
  std::string candidate = R"(#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include "examples/kernels.h"

namespace cg = cooperative_groups;

// Sum over a warp.
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void layernorm_warp_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                      int rows, int cols, float eps) {
  int row = blockIdx.x;
  float s = warp_sum(x[(size_t)row * cols]);
  if (threadIdx.x == 0) y[(size_t)row * cols] = s * gamma[0] + beta[0] + eps;
}

void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows,
                      int cols, float eps) {
  if (rows <= 0 || cols <= 0) return;
  layernorm_warp_kernel<<<rows, 32>>>(x, gamma, beta, y, rows, cols, eps);
}
)";
  auto change = make_source_change("src/layernorm.cu", original, "launch_layernorm", Variant{candidate, {}, {}, ""});
  const std::string& u = change.updated;
  size_t header = u.find("// layernorm: y = (x - mean)");
  size_t include = u.find("#include <cooperative_groups.h>");
  size_t alias = u.find("namespace cg = cooperative_groups;");
  size_t helper = u.find("// Sum over a warp.");
  size_t kernel = u.find("__global__ void layernorm_warp_kernel");
  size_t launcher = u.find("void launch_layernorm");
  EXPECT_EQ(header, 0u) << u;  // the file's header comment, which the model dropped
  ASSERT_NE(include, std::string::npos) << u;
  EXPECT_LT(include, alias);
  EXPECT_LT(alias, helper);
  EXPECT_LT(helper, kernel);
  EXPECT_LT(kernel, launcher);
  // The old kernel is reachable from other files: kept, with its doc comment, before the new code.
  EXPECT_EQ(count(u, "__global__ void layernorm_kernel("), 1u);
  EXPECT_EQ(count(u, "#include \"examples/kernels.h\""), 1u);
  EXPECT_EQ(u.substr(launcher), candidate.substr(candidate.find("void launch_layernorm")));
}

// A candidate without the launcher could not have been verified (the harness calls it); should one
// reach the PR step, the original's launcher is kept, so the PR cannot delete it.
TEST(SourceSplicer, ALauncherTheCandidateLacksIsKept) {
  std::string original = example("saxpy.cu");
  auto change = make_source_change("src/saxpy.cu", original, "launch_saxpy",
                                   Variant{"__global__ void k(float* y) { y[0] = 1; }\n", {}, {}, ""});
  EXPECT_NE(change.updated.find("void launch_saxpy(const float* x, float* y, float a, int n) {"), std::string::npos)
      << change.updated;
  EXPECT_NE(change.updated.find("__global__ void saxpy_kernel("), std::string::npos);
}

}  // namespace

// Overloads of one launcher: the winner changed the second (the bf16 one); the PR must change
// that overload's line, not splice it over the first.
TEST(SourceSplicer, AWinnerInTheSecondOverloadEditsThatOverload) {
  const std::string original = R"(template <typename T, int kThreads>
__global__ void rows_kernel(T* out, const T* inp, int rows) {
  if (blockIdx.x < rows) out[blockIdx.x * kThreads + threadIdx.x] = inp[blockIdx.x * kThreads + threadIdx.x];
}

void rows_forward(float* out, const float* inp, int rows, cudaStream_t stream) {
  constexpr int threads = 32;
  rows_kernel<float, threads><<<rows, threads, 0, stream>>>(out, inp, rows);
}

void rows_forward(__nv_bfloat16* out, const __nv_bfloat16* inp, int rows, cudaStream_t stream) {
  constexpr int threads = 64;
  rows_kernel<__nv_bfloat16, threads><<<rows, threads, 0, stream>>>(out, inp, rows);
}
)";
  std::string winner = original;
  winner.replace(winner.find("constexpr int threads = 64;"), 27, "constexpr int threads = 256;");
  auto change = make_source_change("src/rows.cu", original, "rows_forward", Variant{winner, {}, {}, ""});
  EXPECT_EQ(change.updated, winner) << change.patch;
  EXPECT_NE(change.patch.find("-  constexpr int threads = 64;\n+  constexpr int threads = 256;"), std::string::npos)
      << change.patch;
  EXPECT_EQ(change.patch.find("threads = 32"), std::string::npos) << "the float overload is untouched:\n"
                                                                  << change.patch;
}
