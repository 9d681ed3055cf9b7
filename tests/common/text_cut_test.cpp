#include "common/text_cut.h"

#include <gtest/gtest.h>

TEST(TextCut, AFittingTextIsKeptWholeALongOneSaysHowMuchWasCut) {
  EXPECT_EQ(kb::keep_head("abcdef", 6), "abcdef");
  EXPECT_EQ(kb::keep_tail("abcdef", 6), "abcdef");
  EXPECT_EQ(kb::keep_head("abcdef", 2), "ab\n[... 4 characters cut ...]");
  EXPECT_EQ(kb::keep_tail("abcdef", 2), "[... 4 characters cut ...]\nef");
}
