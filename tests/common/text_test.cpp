#include "common/text.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(Text, LowerChangesAsciiLettersOnly) {
  EXPECT_EQ(lower("ReBench 42 ÄB"), "rebench 42 Äb");
  EXPECT_EQ(lower(""), "");
}

TEST(Text, AMarkdownCellIsOneLineWithItsPipesEscaped) {
  EXPECT_EQ(markdown_cell("a|b\nc\r\nd"), "a\\|b c  d");
  EXPECT_EQ(markdown_cell("plain"), "plain");
}

}  // namespace
}  // namespace kb
