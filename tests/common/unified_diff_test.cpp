// The in-process unified diff, in the exact format `diff -u` and git apply read.
#include "common/unified_diff.h"

#include <gtest/gtest.h>

using kb::unified_diff;

TEST(UnifiedDiff, ShowsChangesWithContextInDiffFormat) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n";
  EXPECT_EQ(unified_diff(before, after, "k.cu"),
            "--- a/k.cu\n+++ b/k.cu\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n");
  EXPECT_EQ(unified_diff(before, before, "k.cu"), "");
  EXPECT_EQ(unified_diff("", "a\n", "new.cu"), "--- a/new.cu\n+++ b/new.cu\n@@ -0,0 +1 @@\n+a\n");
  EXPECT_EQ(unified_diff("a\nb", "a\nc", "x"),
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
}
