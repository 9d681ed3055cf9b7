// The source scanner's byte ranges and top-level pieces, which the PR splicer edits by.
#include <gtest/gtest.h>

#include "cuda_source/tokens/source_scanner.h"

namespace {

using kb::cuda_source::ScanResult;
using kb::cuda_source::SourceChunk;
using kb::cuda_source::top_level_chunks;

std::string slice(const std::string& s, size_t b, size_t e) { return s.substr(b, e - b); }

const char* kSource = R"(// header comment
#include <cuda_runtime.h>
#define TILE 32  // tile edge

namespace ops {
template <int B>
__global__ void __launch_bounds__(B) scale(float* x, int n) {
  if (threadIdx.x < n) x[threadIdx.x] *= 2;  // { not a brace
}
}  // namespace ops

struct Params { int n; };

__global__ void declared_only(int n);

void launch_scale(float* x, int n) {
#pragma unroll 1
  for (int i = 0; i < 1; ++i) ops::scale<256><<<1, 256>>>(x, n);
}
)";

TEST(ScannerRanges, KernelAndLauncherRangesCoverTheirWholeDefinitions) {
  ScanResult r;
  kb::cuda_source::scan_source(kSource, "a.cu", r);
  std::string s = kSource;
  ASSERT_EQ(r.kernels.size(), 2u);
  const auto& k = r.kernels[0];
  EXPECT_EQ(k.name, "scale");
  std::string text = slice(s, k.begin, k.end);
  EXPECT_EQ(text.rfind("template <int B>", 0), 0u) << text;
  EXPECT_EQ(text.back(), '}');
  EXPECT_NE(text.find("{ not a brace"), std::string::npos);
  const auto& d = r.kernels[1];
  EXPECT_FALSE(d.is_definition);
  EXPECT_EQ(slice(s, d.begin, d.end), "__global__ void declared_only(int n);");
  ASSERT_EQ(r.launchers.size(), 1u);
  std::string launcher = slice(s, r.launchers[0].begin, r.launchers[0].end);
  EXPECT_EQ(launcher.rfind("void launch_scale(", 0), 0u) << launcher;
  EXPECT_EQ(launcher.substr(launcher.size() - 2), "\n}");
}

TEST(ScannerRanges, TopLevelChunksAreDirectivesAndWholeDeclarations) {
  std::string s = kSource;
  auto chunks = top_level_chunks(s);
  std::vector<std::string> texts;
  for (const auto& c : chunks) texts.push_back(slice(s, c.begin, c.end));
  ASSERT_EQ(texts.size(), 6u) << ::testing::PrintToString(texts);
  EXPECT_EQ(texts[0], "#include <cuda_runtime.h>");
  EXPECT_EQ(chunks[0].kind, SourceChunk::directive);
  EXPECT_EQ(chunks[0].line, 2);
  EXPECT_EQ(texts[1], "#define TILE 32  // tile edge");
  EXPECT_EQ(texts[2].rfind("namespace ops {", 0), 0u);
  EXPECT_EQ(texts[2].back(), '}');  // the namespace block is one piece
  EXPECT_EQ(texts[3], "struct Params { int n; };");
  EXPECT_EQ(texts[4], "__global__ void declared_only(int n);");
  EXPECT_EQ(texts[5].rfind("void launch_scale(", 0), 0u);  // the #pragma inside belongs to it
  EXPECT_EQ(chunks[5].kind, SourceChunk::declaration);
}

TEST(ScannerRanges, InitializersWithBracesEndAtTheirSemicolon) {
  std::string s = "const int table[] = {1, 2, 3};\nauto f = [](int x) { return x; };\nint g() { return 1; }\n";
  auto chunks = top_level_chunks(s);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(slice(s, chunks[0].begin, chunks[0].end), "const int table[] = {1, 2, 3};");
  EXPECT_EQ(slice(s, chunks[1].begin, chunks[1].end), "auto f = [](int x) { return x; };");
  EXPECT_EQ(slice(s, chunks[2].begin, chunks[2].end), "int g() { return 1; }");
}

TEST(ScannerRanges, ContinuedDirectiveIsOnePiece) {
  std::string s = "#define LONG(a) \\\n  ((a) + 1)\nint x;\n";
  auto chunks = top_level_chunks(s);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(slice(s, chunks[0].begin, chunks[0].end), "#define LONG(a) \\\n  ((a) + 1)");
}

}  // namespace
