// The knobs real launchers have without macros: literal block sizes with the grid that divides
// by them, const/constexpr locals, dim3 block shapes, #pragma unroll and __launch_bounds__
// literals, launcher parameters used as block sizes; and the exact text each edit produces.
#include "cuda_source/knobs/literal_knobs.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.h"

using namespace kb::cuda_source;

namespace {

// The byte offset of the `nth` (0-based) occurrence of `what` after the first occurrence of `anchor`.
size_t offset_of(const std::string& text, const std::string& what, const std::string& anchor = "", int nth = 0) {
  size_t pos = anchor.empty() ? 0 : text.find(anchor);
  EXPECT_NE(pos, std::string::npos) << anchor;
  pos = text.find(what, pos);
  for (int i = 0; i < nth && pos != std::string::npos; ++i) pos = text.find(what, pos + 1);
  EXPECT_NE(pos, std::string::npos) << what;
  return pos;
}

std::string with_value(const LiteralKnob& knob, const std::string& text, int64_t value) {
  return apply_text_edits(text, knob.edits(value));
}

const LiteralKnob* knob_named(const LauncherKnobs& knobs, const std::string& name) {
  for (const auto& k : knobs.literals)
    if (k.name == name) return &k;
  return nullptr;
}

const std::string kGelu = R"(#include <cuda_bf16.h>

__global__ void gelu_kernel(const __nv_bfloat16* x, __nv_bfloat16* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void launch_gelu(const __nv_bfloat16* x, __nv_bfloat16* y, int n, cudaStream_t stream) {
  int grid = (n + 31) / 32;  // one thread per element
  gelu_kernel<<<grid, 32, 0, stream>>>(x, y, n);
}
)";

}  // namespace

TEST(LiteralKnobs, ALiteralBlockSizeMovesWithTheGridThatDividesByIt) {
  auto knobs = find_launcher_knobs(kGelu, "launch_gelu", "src/gelu.cu");
  ASSERT_EQ(knobs.literals.size(), 1u);
  const LiteralKnob& k = knobs.literals[0];
  EXPECT_EQ(k.kind, KnobKind::launch_block);
  EXPECT_EQ(k.role, MacroRole::block_size);
  EXPECT_EQ(k.value, 32);
  EXPECT_EQ(k.line, 10);
  EXPECT_EQ(k.description(), "block size of launch_gelu's launch (the literal 32 at src/gelu.cu:10)");
  ASSERT_EQ(k.occurrences.size(), 3u);
  EXPECT_EQ(k.occurrences[0].begin, offset_of(kGelu, "32", "<<<"));
  EXPECT_EQ(k.occurrences[0].end, k.occurrences[0].begin + 2);
  EXPECT_EQ(k.occurrences[1].begin, offset_of(kGelu, "31", "int grid"));
  EXPECT_EQ(k.occurrences[1].offset, -1);
  EXPECT_EQ(k.occurrences[2].begin, offset_of(kGelu, "32", "int grid"));
  EXPECT_TRUE(knobs.arguments.empty());

  std::string expected = kGelu;
  expected.replace(expected.find("(n + 31) / 32"), 13, "(n + 255) / 256");
  expected.replace(expected.find("<<<grid, 32,"), 12, "<<<grid, 256,");
  EXPECT_EQ(with_value(k, kGelu, 256), expected);
  EXPECT_EQ(with_value(k, kGelu, 32), kGelu);
}

TEST(LiteralKnobs, InlineGridSpellingsOfTheRoundedUpDivision) {
  const std::string text = R"(__global__ void k(float* y, int n) { y[0] = n; }
void launch_a(float* y, int n) { k<<<(n + 32 - 1) / 32, 32>>>(y, n); }
void launch_b(float* y, int n) { k<<<ceil_div(n, 64), 64>>>(y, n); }
)";
  auto a = find_launcher_knobs(text, "launch_a", "k.cu");
  ASSERT_EQ(a.literals.size(), 1u);
  EXPECT_EQ(a.literals[0].occurrences.size(), 3u);
  EXPECT_NE(with_value(a.literals[0], text, 128).find("k<<<(n + 128 - 1) / 128, 128>>>"), std::string::npos);
  auto b = find_launcher_knobs(text, "launch_b", "k.cu");
  ASSERT_EQ(b.literals.size(), 1u);
  EXPECT_NE(with_value(b.literals[0], text, 256).find("k<<<ceil_div(n, 256), 256>>>"), std::string::npos);
}

TEST(LiteralKnobs, ABlockLiteralTheGridUsesOtherwiseIsNotOffered) {
  const std::string text = R"(__global__ void k(float* y) { y[threadIdx.x] = 0; }
void launch_fixed(float* y) { k<<<32, 32>>>(y); }
void launch_smem(float* y, int n) { k<<<(n + 31) / 32, 32, 32 * sizeof(float)>>>(y); }
)";
  auto fixed = find_launcher_knobs(text, "launch_fixed", "k.cu");
  EXPECT_TRUE(fixed.literals.empty());
  ASSERT_EQ(fixed.not_offered.size(), 1u);
  EXPECT_NE(fixed.not_offered[0].find("the literal 32 at k.cu:2"), std::string::npos) << fixed.not_offered[0];
  EXPECT_NE(fixed.not_offered[0].find("cannot follow a new block size"), std::string::npos);
  auto smem = find_launcher_knobs(text, "launch_smem", "k.cu");
  EXPECT_TRUE(smem.literals.empty());
  ASSERT_EQ(smem.not_offered.size(), 1u);
  EXPECT_NE(smem.not_offered[0].find("other arguments use 32"), std::string::npos);
}

TEST(LiteralKnobs, ConstexprLocalUsedAsTemplateArgumentAndBlockSize) {
  const std::string text = R"(template <typename T, int THREADS>
__global__ void row_sum_kernel(const T* in, T* out, int cols) {
  T acc = 0;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += THREADS) acc += in[blockIdx.x * cols + c];
  out[blockIdx.x] = acc;
}

void launch_row_sum(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  constexpr int threads = 32;
  row_sum_kernel<float, threads><<<rows, threads, 0, stream>>>(in, out, cols);
}
)";
  auto knobs = find_launcher_knobs(text, "launch_row_sum", "src/rows.cu");
  ASSERT_EQ(knobs.literals.size(), 2u);
  const LiteralKnob* threads = knob_named(knobs, "threads");
  ASSERT_NE(threads, nullptr);
  EXPECT_EQ(threads->kind, KnobKind::constant);
  EXPECT_EQ(threads->role, MacroRole::block_size);
  EXPECT_EQ(threads->value, 32);
  ASSERT_EQ(threads->occurrences.size(), 1u);
  EXPECT_EQ(threads->occurrences[0].begin, offset_of(text, "32", "constexpr int threads"));
  EXPECT_EQ(threads->description(),
            "block size `threads` of launch_row_sum (`constexpr int threads = 32` at src/rows.cu:10)");
  std::string expected = text;
  expected.replace(expected.find("threads = 32"), 12, "threads = 128");
  EXPECT_EQ(with_value(*threads, text, 128), expected);

  const LiteralKnob* unroll = knob_named(knobs, "row_sum_kernel unroll@4");
  ASSERT_NE(unroll, nullptr);
  EXPECT_EQ(unroll->kind, KnobKind::pragma_unroll);
  EXPECT_EQ(unroll->value, 4);
  EXPECT_EQ(unroll->occurrences[0].begin, offset_of(text, "4", "#pragma unroll"));
  EXPECT_NE(with_value(*unroll, text, 8).find("#pragma unroll 8\n"), std::string::npos);
}

TEST(LiteralKnobs, ConstLocalWithALiteralGridMovesTheGridToo) {
  const std::string text = R"(__global__ void k(float* y, int n) { y[0] = n; }
void launch_k(float* y, int n) {
  const int block_size = 128;
  k<<<(n + 127) / block_size, block_size>>>(y, n);
}
)";
  auto knobs = find_launcher_knobs(text, "launch_k", "k.cu");
  ASSERT_EQ(knobs.literals.size(), 1u);
  EXPECT_EQ(knobs.literals[0].occurrences.size(), 2u);
  std::string out = with_value(knobs.literals[0], text, 256);
  EXPECT_NE(out.find("const int block_size = 256;"), std::string::npos);
  EXPECT_NE(out.find("k<<<(n + 255) / block_size, block_size>>>"), std::string::npos);
}

TEST(LiteralKnobs, Dim3BlockComponentsWithTheGridExtentsThatDivideByThem) {
  const std::string text = R"(__global__ void rows_kernel(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[r * cols + c] = 2 * in[r * cols + c];
}

void launch_rows(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  dim3 block(1, 256);
  dim3 grid(cols, (rows + 255) / 256);
  rows_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
)";
  auto knobs = find_launcher_knobs(text, "launch_rows", "src/rows.cu");
  ASSERT_EQ(knobs.literals.size(), 2u);
  const LiteralKnob* x = knob_named(knobs, "block.x");
  const LiteralKnob* y = knob_named(knobs, "block.y");
  ASSERT_TRUE(x && y);
  EXPECT_EQ(x->role, MacroRole::block_dimension);
  EXPECT_EQ(x->group, y->group);
  EXPECT_FALSE(x->group.empty());
  EXPECT_EQ(x->value, 1);
  EXPECT_EQ(y->value, 256);
  ASSERT_EQ(x->occurrences.size(), 2u);
  EXPECT_EQ(x->occurrences[0].begin, offset_of(text, "1", "dim3 block("));
  EXPECT_EQ(x->occurrences[1].begin, offset_of(text, "cols", "dim3 grid("));
  EXPECT_EQ(x->occurrences[1].wrapped, "cols");
  ASSERT_EQ(y->occurrences.size(), 3u);
  EXPECT_EQ(y->occurrences[0].begin, offset_of(text, "256", "dim3 block("));

  auto edits = x->edits(32);
  for (const auto& e : y->edits(8)) edits.push_back(e);
  std::string expected = text;
  expected.replace(expected.find("dim3 block(1, 256);"), 19, "dim3 block(32, 8);");
  expected.replace(expected.find("dim3 grid(cols, (rows + 255) / 256);"), 36,
                   "dim3 grid(((cols) + 32 - 1) / 32, (rows + 7) / 8);");
  EXPECT_EQ(apply_text_edits(text, edits), expected);
}

TEST(LiteralKnobs, AGridThatReadsTheBlockItselfIsLeftAlone) {
  const std::string text = R"(__global__ void k(float* y, int rows, int cols) { y[0] = rows + cols; }
void launch_k(float* y, int rows, int cols) {
  dim3 block(1, 256);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  k<<<grid, block>>>(y, rows, cols);
}
)";
  auto knobs = find_launcher_knobs(text, "launch_k", "k.cu");
  ASSERT_EQ(knobs.literals.size(), 2u);
  for (const auto& knob : knobs.literals) EXPECT_EQ(knob.occurrences.size(), 1u) << knob.name;
  auto edits = knobs.literals[0].edits(32);
  for (const auto& e : knobs.literals[1].edits(8)) edits.push_back(e);
  std::string expected = text;
  expected.replace(expected.find("dim3 block(1, 256);"), 19, "dim3 block(32, 8);");
  EXPECT_EQ(apply_text_edits(text, edits), expected);
}

TEST(LiteralKnobs, LaunchBoundsFollowTheBlockAndTheirMinimumBlocksAreAKnob) {
  const std::string text = R"(__global__ void __launch_bounds__(256, 2) k(float* y, int n) { y[0] = n; }
void launch_k(float* y, int n) { k<<<(n + 255) / 256, 256>>>(y, n); }
)";
  auto knobs = find_launcher_knobs(text, "launch_k", "k.cu");
  ASSERT_EQ(knobs.literals.size(), 2u);
  const LiteralKnob* block = knob_named(knobs, "launch_k block");
  const LiteralKnob* min_blocks = knob_named(knobs, "k min blocks");
  ASSERT_TRUE(block && min_blocks);
  EXPECT_EQ(block->occurrences.size(), 4u);  // the block, 255, /256 and the bound
  std::string out = with_value(*block, text, 512);
  EXPECT_NE(out.find("__launch_bounds__(512, 2)"), std::string::npos) << out;
  EXPECT_NE(out.find("k<<<(n + 511) / 512, 512>>>"), std::string::npos) << out;
  EXPECT_EQ(min_blocks->value, 2);
  EXPECT_NE(with_value(*min_blocks, text, 4).find("__launch_bounds__(256, 4)"), std::string::npos);
}

TEST(LiteralKnobs, ALauncherParameterUsedAsBlockSizeIsAnArgumentKnob) {
  const std::string text = R"(__global__ void gather_kernel(const float* src, const int* idx, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]];
}

void launch_gather(const float* src, const int* idx, float* dst, int n, cudaStream_t stream, int threads) {
  gather_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(src, idx, dst, n);
}

void launch_fixed(const float* src, const int* idx, float* dst, int n, const int threads) {
  gather_kernel<<<(n + threads - 1) / threads, threads>>>(src, idx, dst, n);
}
)";
  auto knobs = find_launcher_knobs(text, "launch_gather", "g.cu");
  EXPECT_TRUE(knobs.literals.empty());
  ASSERT_EQ(knobs.arguments.size(), 1u);
  const ArgumentKnob& a = knobs.arguments[0];
  EXPECT_EQ(a.param, "threads");
  EXPECT_EQ(a.type, "int");
  EXPECT_EQ(a.body_begin, offset_of(text, "{", "void launch_gather") + 1);
  EXPECT_FALSE(find_advisory_probe(text).has_value());
  std::string probed = apply_text_edits(text, {a.probe(256, 64)});
  EXPECT_NE(probed.find("int threads) {\n  threads = 256;  // kernelbot: advisory probe of launch_gather's "
                        "caller-chosen `threads` (64 in this config)\n  gather_kernel<<<"),
            std::string::npos)
      << probed;
  auto probe = find_advisory_probe(probed);
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->subject, "launch_gather's caller-chosen `threads` (64 in this config)");
  EXPECT_EQ(probe->value, "256");

  auto fixed = find_launcher_knobs(text, "launch_fixed", "g.cu");
  EXPECT_TRUE(fixed.arguments.empty());
  ASSERT_EQ(fixed.not_offered.size(), 1u);
  EXPECT_NE(fixed.not_offered[0].find("const, reference or pointer"), std::string::npos);
}

TEST(LiteralKnobs, OverlappingEditsAreRefused) {
  EXPECT_THROW(apply_text_edits("abcdef", {{1, 3, "x"}, {2, 4, "y"}}), kb::Error);
  EXPECT_EQ(apply_text_edits("abcdef", {{4, 5, "E"}, {0, 1, "AA"}}), "AAbcdEf");
}

TEST(LiteralKnobs, AnUnguardedDefineUsedAsTheBlockIsAKnobWhenOnlyThisLauncherUsesIt) {
  // Legacy code: the block is a plain #define (-D cannot change it), the grid divides by it, and
  // the kernel's __launch_bounds__ repeats its value.
  const std::string text = R"(#define SAXPY_BLOCK 128
#define UNUSED_WIDTH 64

__global__ void __launch_bounds__(128) saxpy_kernel(unsigned n, float a, const float* x, float* y) {
  const unsigned i = blockIdx.x * SAXPY_BLOCK + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  saxpy_kernel<<<iDivUp(n, SAXPY_BLOCK), SAXPY_BLOCK>>>(n, a, x, y);
}
)";
  auto knobs = find_launcher_knobs(text, "saxpy", "legacy_saxpy.cu");
  const LiteralKnob* block = knob_named(knobs, "SAXPY_BLOCK");
  ASSERT_NE(block, nullptr) << (knobs.not_offered.empty() ? "" : knobs.not_offered[0]);
  EXPECT_EQ(block->kind, KnobKind::define_value);
  EXPECT_EQ(block->role, MacroRole::block_size);
  EXPECT_EQ(block->kernel, "saxpy_kernel");
  EXPECT_EQ(block->value, 128);
  EXPECT_EQ(block->description(), "block size `SAXPY_BLOCK` of saxpy (`#define SAXPY_BLOCK 128` at legacy_saxpy.cu:1)");
  EXPECT_EQ(knob_named(knobs, "UNUSED_WIDTH"), nullptr);
  std::string expected = text;
  expected.replace(expected.find("SAXPY_BLOCK 128"), 15, "SAXPY_BLOCK 256");
  expected.replace(expected.find("__launch_bounds__(128)"), 22, "__launch_bounds__(256)");
  EXPECT_EQ(with_value(*block, text, 256), expected);

  // Another launcher reads it too: changing it would change a launch nobody measures.
  const std::string shared = text + "void saxpy_twice(int n, float a, const float* x, float* y) {\n"
                                    "  saxpy_kernel<<<iDivUp(n, SAXPY_BLOCK), SAXPY_BLOCK>>>(n, a, x, y);\n}\n";
  auto refused = find_launcher_knobs(shared, "saxpy", "legacy_saxpy.cu");
  EXPECT_EQ(knob_named(refused, "SAXPY_BLOCK"), nullptr);
  ASSERT_FALSE(refused.not_offered.empty());
  EXPECT_NE(refused.not_offered[0].find("`SAXPY_BLOCK` is used outside saxpy"), std::string::npos)
      << refused.not_offered[0];

  // Guarded (a tunable macro, set with -D) or defined twice: not this kind of knob.
  std::string guarded = text;
  guarded.replace(0, 24, "#ifndef SAXPY_BLOCK\n#define SAXPY_BLOCK 128\n#endif");
  EXPECT_EQ(knob_named(find_launcher_knobs(guarded, "saxpy", "f.cu"), "SAXPY_BLOCK"), nullptr);
  std::string twice = "#ifdef BIG\n#define SAXPY_BLOCK 512\n#else\n" + text.substr(0, 24) + "#endif\n" +
                      text.substr(24);
  EXPECT_EQ(knob_named(find_launcher_knobs(twice, "saxpy", "f.cu"), "SAXPY_BLOCK"), nullptr);
}
