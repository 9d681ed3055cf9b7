// Literal-only differences described in words, for the PR's edit list.
#include "cuda_source/knobs/literal_diff.h"

#include <gtest/gtest.h>

using namespace kb::cuda_source;

namespace {

const std::string kOriginal = R"(__global__ void k(float* y, int n) {
  float scale = 5;
  y[0] = n * scale;
}
void launch_k(float* y, int n) {
  int grid = (n + 31) / 32;
  k<<<grid, 32>>>(y, n);
}
)";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

}  // namespace

TEST(LiteralDiff, NamesTheKnobWhoseLiteralsChangedAndLiteralsNoKnobOwns) {
  std::string updated = replaced(replaced(kOriginal, "(n + 31) / 32", "(n + 127) / 128"), "grid, 32>>>",
                                 "grid, 128>>>");
  auto edits = describe_literal_changes(kOriginal, updated, "launch_k", "src/k.cu");
  ASSERT_TRUE(edits.has_value());
  EXPECT_EQ(*edits, std::vector<std::string>{"block size literal in launch_k: 32 -> 128"});

  auto other = describe_literal_changes(kOriginal, replaced(kOriginal, "scale = 5", "scale = 6"), "launch_k",
                                        "src/k.cu");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(*other, std::vector<std::string>{"the literal at src/k.cu:2: 5 -> 6"});
}

TEST(LiteralDiff, AnythingButLiteralsIsNotALiteralChange) {
  EXPECT_FALSE(describe_literal_changes(kOriginal, kOriginal, "launch_k", "k.cu").has_value());
  EXPECT_FALSE(describe_literal_changes(kOriginal, replaced(kOriginal, "n * scale", "n + scale"), "launch_k", "k.cu"));
  std::string commented = replaced(kOriginal, "scale = 5;", "scale = 6;  // six");
  EXPECT_FALSE(describe_literal_changes(kOriginal, commented, "launch_k", "k.cu").has_value());
  EXPECT_FALSE(
      describe_literal_changes(kOriginal, replaced(kOriginal, "scale = 5", "scale = 5.0f"), "launch_k", "k.cu"));
}
