// A kernel's launches as written: literal template arguments wherever the kernel is named with
// them, the components of dim3 grids and blocks, and grid components that round a count up.
#include "cuda_source/reading/launch_as_written.h"

#include <gtest/gtest.h>

namespace kb::cuda_source {
namespace {

TEST(LaunchAsWritten, LiteralTemplateArgumentsInOrderOfAppearance) {
  const std::string text = R"(template <int BS, typename T> __global__ void gemm(const T* a, T* c);
void run(int mode) {
  auto k = mode ? gemm<32, float> : gemm<64, float>;
  gemm<32, float><<<1, 1>>>(a, c);
  gemm<BLOCK, float><<<1, 1>>>(a, c);
  other.gemm<8, float>(a);
  k<<<1, 1>>>(a, c);
}
)";
  EXPECT_EQ(literal_template_arguments(text, "gemm"), (std::vector<std::string>{"32, float", "64, float"}))
      << "a macro's name is no literal, a member is another function";
  EXPECT_TRUE(literal_template_arguments(text, "run").empty());
}

TEST(LaunchAsWritten, Dim3ComponentsFromTheNearestDefinitionBeforeTheSite) {
  const std::string text = R"(void a() { dim3 block(8); }
void b(int n, int m) {
  dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
  dim3 lazy;
  lazy.x = 4;
  dim3 assigned = dim3(32, 4, 2);
  k<<<grid, block>>>(n);
}
)";
  const size_t site = text.find("k<<<");
  EXPECT_EQ(dim3_components(text, site, "block"), (std::vector<std::string>{"16", "16"}));
  EXPECT_EQ(dim3_components(text, site, " grid "), (std::vector<std::string>{"(n + 15) / 16", "(m + 15) / 16"}));
  EXPECT_EQ(dim3_components(text, site, "assigned"), (std::vector<std::string>{"32", "4", "2"}));
  EXPECT_EQ(dim3_components(text, site, "dim3(64, 2)"), (std::vector<std::string>{"64", "2"}));
  EXPECT_EQ(dim3_components(text, site, "(n + 255) / 256"), (std::vector<std::string>{"(n + 255) / 256"}));
  EXPECT_EQ(dim3_components(text, site, "threads"), (std::vector<std::string>{"threads"})) << "no dim3: a number";
  EXPECT_FALSE(dim3_components(text, site, "lazy")) << "set member by member: not read";
}

TEST(LaunchAsWritten, CeilDivisionsInTheirUsualSpellings) {
  auto expect = [](const std::string& c, const std::string& count, const std::string& divisor) {
    auto got = ceil_division(c);
    ASSERT_TRUE(got) << c;
    EXPECT_EQ(got->count, count) << c;
    EXPECT_EQ(got->divisor, divisor) << c;
  };
  expect("(N + 15) / 16", "N", "16");
  expect("(n + BS - 1) / BS", "n", "BS");
  expect("(rows * cols + block.x - 1) / block.x", "rows * cols", "block.x");
  expect("ceil_div(M, 32)", "M", "32");
  expect("CEIL_DIV(M * N, TILE)", "M * N", "TILE");
  expect("cdiv(n, 128)", "n", "128");
  EXPECT_FALSE(ceil_division("(N + 7) / 16")) << "not one less than the divisor";
  EXPECT_FALSE(ceil_division("N / 32"));
  EXPECT_FALSE(ceil_division("blocks"));
}

}  // namespace
}  // namespace kb::cuda_source
