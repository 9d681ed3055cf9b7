// split_outside_brackets: the launch readers' list splitter (a grid "f(a, b), c[1, 2], {x, y}").
#include "common/bracket_split.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

using Pieces = std::vector<std::string>;

TEST(BracketSplit, SplitsAtTopLevelSeparatorsOnlyAndTrimsThePieces) {
  EXPECT_EQ(split_outside_brackets(" (n + 255) / 256 , 1,  1 ", ','), (Pieces{"(n + 255) / 256", "1", "1"}));
  EXPECT_EQ(split_outside_brackets("max(a, b), c[1, 2], {x, y}", ','), (Pieces{"max(a, b)", "c[1, 2]", "{x, y}"}));
  EXPECT_EQ(split_outside_brackets("f(g(a, b), c), d", ','), (Pieces{"f(g(a, b), c)", "d"}));
}

TEST(BracketSplit, KeepsEmptyPiecesForTheCallerToJudge) {
  EXPECT_EQ(split_outside_brackets("", ','), (Pieces{""}));
  EXPECT_EQ(split_outside_brackets("a,,b,", ','), (Pieces{"a", "", "b", ""}));
}

TEST(BracketSplit, AnUnclosedBracketKeepsTheRestInOnePiece) {
  EXPECT_EQ(split_outside_brackets("f(a, b, c", ','), (Pieces{"f(a, b, c"}));
  EXPECT_EQ(split_outside_brackets("a; b(c; d); e", ';'), (Pieces{"a", "b(c; d)", "e"}));
}

}  // namespace
}  // namespace kb
