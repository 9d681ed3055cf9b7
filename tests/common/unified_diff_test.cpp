// The in-process unified diff, in the exact format `git diff` prints and `git apply` reads.
#include "common/unified_diff.h"

#include <gtest/gtest.h>

using kb::unified_diff;

TEST(UnifiedDiff, ShowsChangesWithContextInDiffFormat) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n";
  // The index line names the two texts' blobs, as `git hash-object` computes them.
  EXPECT_EQ(unified_diff(before, after, "k.cu"),
            "diff --git a/k.cu b/k.cu\nindex 08fe19c..f83e7a9 100644\n--- a/k.cu\n+++ b/k.cu\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n");
  EXPECT_EQ(unified_diff(before, before, "k.cu"), "");
  EXPECT_EQ(unified_diff("", "a\n", "new.cu"),
            "diff --git a/new.cu b/new.cu\nindex e69de29..7898192 100644\n--- a/new.cu\n+++ b/new.cu\n"
            "@@ -0,0 +1 @@\n+a\n");
  EXPECT_EQ(unified_diff("a\nb", "a\nc", "x"),
            "diff --git a/x b/x\nindex 0a207c0..817f660 100644\n--- a/x\n+++ b/x\n"
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
}

// Like git, a hunk's header names the line that opens the code around it (here the kernel).
TEST(UnifiedDiff, HunkHeadersNameTheEnclosingFunction) {
  const std::string before = "__global__ void k(float* x) {\n  a;\n  b;\n  c;\n  d;\n  e;\n}\n";
  const std::string after = "__global__ void k(float* x) {\n  a;\n  b;\n  c;\n  d;\n  E;\n}\n";
  const std::string diff = unified_diff(before, after, "k.cu");
  EXPECT_NE(diff.find("@@ -3,5 +3,5 @@ __global__ void k(float* x) {\n   b;\n   c;\n   d;\n-  e;\n+  E;\n }\n"),
            std::string::npos)
      << diff;
}

// A stray NUL byte does not turn a source into "Binary files differ": the lines are still shown.
TEST(UnifiedDiff, AlwaysDiffsAsText) {
  const std::string diff = unified_diff(std::string("a\0b\n", 4), "c\n", "k.cu");
  EXPECT_EQ(diff.find("Binary files"), std::string::npos) << diff;
  EXPECT_NE(diff.find("\n+c\n"), std::string::npos) << diff;
}
