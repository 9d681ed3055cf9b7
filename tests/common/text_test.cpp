#include "common/text.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(Text, LowerChangesAsciiLettersOnly) {
  EXPECT_EQ(lower("ReBench 42 ÄB"), "rebench 42 Äb");
  EXPECT_EQ(lower(""), "");
}

TEST(Text, TrimDropsWhiteSpaceAtBothEndsOnly) {
  EXPECT_EQ(trim(" \t\r\n a  b \v\f\n"), "a  b");
  EXPECT_EQ(trim("a"), "a");
  EXPECT_EQ(trim(" \n\t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");  // not ASCII white space: kept
}

TEST(Text, SplitKeepsEmptyPiecesSoJoinGivesTheTextBack) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split(",", ','), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(split("no separator", ','), (std::vector<std::string>{"no separator"}));
  for (const std::string text : {"a;b;c", ";x;", "", ";;"}) EXPECT_EQ(join(split(text, ';'), ";"), text);
}

TEST(Text, JoinPutsTheSeparatorBetweenPartsOnly) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"", "b"}, "|"), "|b");  // an empty part still has its place
}

TEST(Text, APluralCountIsSingularForOneEitherWay) {
  EXPECT_EQ(plural_count(1, "allocation"), "1 allocation");
  EXPECT_EQ(plural_count(-1, "stream"), "-1 stream");
  EXPECT_EQ(plural_count(0, "event"), "0 events");
  EXPECT_EQ(plural_count(3, "allocation"), "3 allocations");
  EXPECT_EQ(plural_count(-2, "stream"), "-2 streams");
}

TEST(Text, AMarkdownCellIsOneLineWithItsPipesEscaped) {
  EXPECT_EQ(markdown_cell("a|b\nc\r\nd"), "a\\|b c  d");
  EXPECT_EQ(markdown_cell("plain"), "plain");
}

}  // namespace
}  // namespace kb
