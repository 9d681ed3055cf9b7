// What models actually write, and what the parser makes of it.
#include "search/llm/reply_parser.h"

#include <gtest/gtest.h>

using namespace kb::search;

namespace {
const std::string kCode = "#include <cuda_runtime.h>\n"
                          "__global__ void k(float* y, int n) { int i = threadIdx.x; if (i < n) { y[i] *= 2; } }\n"
                          "void launch_k(float* y, int n) {\n  k<<<(n + 255) / 256, 256>>>(y, n);\n}\n";
}

TEST(ExtractCode, FencedWithALanguageTagAndProseAround) {
  auto r = extract_code("Here is the faster kernel:\n\n```cuda\n" + kCode + "```\n\nIt uses 256 threads.", "stop",
                        "launch_k");
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(r.code, kCode);
}

TEST(ExtractCode, FencedWithoutATagOrWithTildes) {
  EXPECT_EQ(extract_code("```\n" + kCode + "```", "stop", "launch_k").code, kCode);
  EXPECT_EQ(extract_code("~~~cpp\n" + kCode + "~~~\n", "stop", "launch_k").code, kCode);
}

TEST(ExtractCode, OfSeveralBlocksTakesTheLastThatDefinesTheLauncher) {
  std::string before = "```cuda\n// before\nvoid launch_k(float* y, int n) {\n  old<<<1, 32>>>(y, n);\n}\n```\n";
  std::string helper = "```cuda\n__device__ float twice(float x) { return 2 * x; }\n```\n";
  std::string usage = "```cpp\nlaunch_k(d_y, n);\n```\n";
  auto r = extract_code("Before:\n" + before + "After:\n```cuda\n" + kCode + "```\n" + helper + usage, "stop",
                        "launch_k");
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(r.code, kCode);
}

TEST(ExtractCode, UnfencedCodeAfterProse) {
  auto r = extract_code("Sure. The new version:\n" + kCode + "\nThis should be about 4x faster.", "stop", "launch_k");
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(r.code, kCode);
}

TEST(ExtractCode, ATruncatedReplyIsAFailedBranchWithAReason) {
  auto r = extract_code("```cuda\n" + kCode.substr(0, 80), "length", "launch_k");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.failure.find("finish_reason \"length\""), std::string::npos);
  EXPECT_NE(r.failure.find("max_tokens_per_reply"), std::string::npos);
}

TEST(ExtractCode, AnUnterminatedBlockIsAcceptedOnlyWhenComplete) {
  EXPECT_TRUE(extract_code("```cuda\n" + kCode, "stop", "launch_k").ok());
  auto cut = extract_code("```cuda\n" + kCode.substr(0, kCode.size() - 3), "stop", "launch_k");
  EXPECT_FALSE(cut.ok());
  EXPECT_NE(cut.failure.find("unterminated"), std::string::npos) << cut.failure;
}

TEST(ExtractCode, AUnifiedDiffIsNamedAsOne) {
  const std::string diff = "--- a/kernel.cu\n+++ b/kernel.cu\n@@ -3,3 +3,3 @@\n void launch_k(float* y, int n) {\n"
                           "-  k<<<(n + 31) / 32, 32>>>(y, n);\n+  k<<<(n + 255) / 256, 256>>>(y, n);\n }\n";
  for (const std::string& reply : {"Change the block size:\n```diff\n" + diff + "```\n", "```cuda\n" + diff + "```",
                                   "Apply this patch:\n" + diff}) {
    auto r = extract_code(reply, "stop", "launch_k");
    EXPECT_FALSE(r.ok()) << reply;
    EXPECT_EQ(r.failure, "the reply is a unified diff, not the whole translation unit the prompt asks for") << reply;
  }
  // A diff shown before the whole file does not hide the file.
  auto r = extract_code("The change:\n```diff\n" + diff + "```\nThe file:\n```cuda\n" + kCode + "```", "stop",
                        "launch_k");
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(r.code, kCode);
}

TEST(ExtractCode, CodeThatLeavesPartsOutIsNamed) {
  const std::string head = "#include <cuda_runtime.h>\n";
  const std::string launcher = "void launch_k(float* y, int n) {\n  k<<<(n + 255) / 256, 256>>>(y, n);\n}\n";
  for (const std::string gap : {"// ... rest of the file unchanged", "// ... (kernel unchanged)",
                                "/* helper functions omitted for brevity */", "// rest of the code remains the same",
                                "...", "// ...", "/* ... existing code ... */", "// Existing kernels unchanged."}) {
    auto r = extract_code("```cuda\n" + head + gap + "\n" + launcher + "```", "stop", "launch_k");
    EXPECT_FALSE(r.ok()) << gap;
    EXPECT_NE(r.failure.find("leaves code out"), std::string::npos) << r.failure;
    EXPECT_NE(r.failure.find(gap), std::string::npos) << r.failure;
  }
  // Comments that only look alike are code's own.
  for (const std::string fine : {"// Load the rest of the tile ...", "// unchanged inputs stay in registers",
                                 "// the tail is handled below", "template <typename... Args>"}) {
    auto r = extract_code("```cuda\n" + head + fine + "\n" + launcher + "```", "stop", "launch_k");
    EXPECT_TRUE(r.ok()) << fine << ": " << r.failure;
  }
  // The original had such a comment itself: keeping it is no gap.
  const std::string seed = head + "// ... rest of the file unchanged\n" + launcher;
  EXPECT_TRUE(extract_code("```cuda\n" + seed + "```", "stop", "launch_k", seed).ok());
}

TEST(SplitReasoning, ThinkBlocksClosedOrNot) {
  auto closed = split_reasoning("<think>\nUse shared memory.\n</think>\n\nThe answer.");
  EXPECT_EQ(closed.answer, "The answer.");
  EXPECT_EQ(closed.reasoning, "Use shared memory.");
  auto open = split_reasoning("Intro <think>and then everything is thought");
  EXPECT_EQ(open.answer, "Intro");
  EXPECT_EQ(open.reasoning, "and then everything is thought");
  auto opened_by_the_template = split_reasoning("hmm, coalescing\n</think>\n\n```cuda\nx\n```");
  EXPECT_EQ(opened_by_the_template.answer, "```cuda\nx\n```");
  EXPECT_EQ(opened_by_the_template.reasoning, "hmm, coalescing");
  auto two = split_reasoning("<think>a</think>one <think>b</think>two");
  EXPECT_EQ(two.answer, "one two");
  EXPECT_EQ(two.reasoning, "a\nb");
  auto none = split_reasoning("  plain answer\n");
  EXPECT_EQ(none.answer, "  plain answer\n");  // untouched
  EXPECT_EQ(none.reasoning, "");
}

TEST(ExtractCode, NoCodeOrNoLauncherIsAFailure) {
  auto none = extract_code("I am sorry, I cannot help with that.", "stop", "launch_k");
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.failure, "the reply contains no code");
  auto other = extract_code("```cuda\nvoid launch_other(float* y) {}\n```", "stop", "launch_k");
  EXPECT_FALSE(other.ok());
  EXPECT_NE(other.failure.find("`launch_k`"), std::string::npos);
  // A declaration or a call is not a definition.
  EXPECT_FALSE(extract_code("```cuda\nvoid launch_k(float* y, int n);\n```", "stop", "launch_k").ok());
  EXPECT_FALSE(extract_code("```cuda\nint main() { launch_k(0, 1); }\n```", "stop", "launch_k").ok());
}

TEST(ExtractCode, QualifiedLaunchersAreMatchedByTheirLastName) {
  std::string code = "namespace ops {\nvoid launch_k(float* y, int n) {\n}\n}\n";
  EXPECT_TRUE(extract_code("```cuda\n" + code + "```", "stop", "ops::launch_k").ok());
}

TEST(ParseIdeas, AJsonListInAFence) {
  auto p = parse_ideas(
      "Let me think about this kernel...\n```json\n[\n"
      "{\"text\": \"Use float4 loads\", \"family\": \"memory access\", \"rationale\": \"16-byte loads\", \"seed\": "
      "\"r1-i0-b0\"},\n"
      "{\"text\": \"256-thread blocks\", \"family\": \"occupancy\", \"rationale\": \"more warps\"}\n]\n```\nDone.");
  ASSERT_TRUE(p.ok()) << p.failure;
  ASSERT_EQ(p.ideas.size(), 2u);
  EXPECT_EQ(p.ideas[0].idea.text, "Use float4 loads");
  EXPECT_EQ(p.ideas[0].idea.family, "memory_access");
  EXPECT_EQ(p.ideas[0].idea.rationale, "16-byte loads");
  EXPECT_EQ(p.ideas[0].seed_id, "r1-i0-b0");
  EXPECT_EQ(p.ideas[1].idea.family, "parallelism");
  EXPECT_TRUE(p.ideas[1].seed_id.empty());
}

TEST(ParseIdeas, BareJsonWithTrailingProseAndOtherShapes) {
  auto bare = parse_ideas("[{\"idea\": \"fuse the memset\", \"category\": \"fusion\"}]\nThese should help.");
  ASSERT_TRUE(bare.ok()) << bare.failure;
  EXPECT_EQ(bare.ideas[0].idea.text, "fuse the memset");
  EXPECT_EQ(bare.ideas[0].idea.family, "fusion");
  auto wrapped = parse_ideas("{\"ideas\": [\"unroll the loop by 4\", {\"description\": \"use shared memory tiles\"}]}");
  ASSERT_TRUE(wrapped.ok()) << wrapped.failure;
  ASSERT_EQ(wrapped.ideas.size(), 2u);
  EXPECT_EQ(wrapped.ideas[0].idea.family, "control_flow");  // from the text, when no family is given
  EXPECT_EQ(wrapped.ideas[1].idea.family, "memory_access");
  auto brackets = parse_ideas("Ideas [ranked]:\n[{\"text\": \"a \\\"quoted\\\" ] bracket\", \"family\": \"x\"}] ok");
  ASSERT_TRUE(brackets.ok()) << brackets.failure;
  EXPECT_EQ(brackets.ideas[0].idea.text, "a \"quoted\" ] bracket");
  EXPECT_EQ(brackets.ideas[0].idea.family, "other");
}

TEST(ParseIdeas, NoJsonIsAFailure) {
  auto p = parse_ideas("1. Use float4.\n2. Bigger blocks.");
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(p.ideas.empty());
  EXPECT_FALSE(parse_ideas("```json\n[{\"text\": \"cut off").ok());
  EXPECT_FALSE(parse_ideas("[]").ok());
}

TEST(ExtractCode, AKernelAndItsLauncherInSeparateBlocksAreJoined) {
  const std::string kernel =
      "```cuda\n#include <cuda_runtime.h>\n"
      "__device__ float twice(float x) { return 2 * x; }\n"
      "__global__ void k(float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = twice(y[i]); }\n```\n";
  const std::string unrelated = "```cuda\n__global__ void other(float* y) { if (y) { y[0] = 0; } }\n```\n";
  const std::string launcher =
      "```cuda\nvoid launch_k(float* y, int n) {\n  k<<<(n + 255) / 256, 256>>>(y, n);\n}\n```\n";
  auto r = extract_code("The kernel:\n" + kernel + "Not needed:\n" + unrelated + "And its launcher:\n" + launcher,
                        "stop", "launch_k");
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_NE(r.code.find("__global__ void k("), std::string::npos) << r.code;
  EXPECT_NE(r.code.find("twice"), std::string::npos);
  EXPECT_LT(r.code.find("__global__ void k("), r.code.find("void launch_k("));  // defined before it is used
  EXPECT_EQ(r.code.find("other"), std::string::npos) << "a block the launcher does not use stays out";

  // A launcher whose kernel no block defines is left as it is (nvcc will name what is missing).
  auto alone = extract_code(launcher, "stop", "launch_k");
  ASSERT_TRUE(alone.ok()) << alone.failure;
  EXPECT_EQ(alone.code.find("__global__"), std::string::npos);
}

TEST(ParseIdeas, CommentsTrailingCommasAndASingleObjectAreRead) {
  auto commented = parse_ideas(
      "```json\n[\n  // the biggest win first\n  {\"text\": \"vectorize with float4\", \"family\": \"memory_access\"},\n"
      "  /* then */ {\"text\": \"larger blocks\", \"family\": \"parallelism\",},\n]\n```");
  ASSERT_TRUE(commented.ok()) << commented.failure;
  ASSERT_EQ(commented.ideas.size(), 2u);
  EXPECT_EQ(commented.ideas[1].idea.text, "larger blocks");
  // A comma inside a string is text, not a trailing comma.
  auto quoted = parse_ideas("[{\"text\": \"tile it, ]\", \"family\": \"memory_access\"},]");
  ASSERT_TRUE(quoted.ok()) << quoted.failure;
  EXPECT_EQ(quoted.ideas[0].idea.text, "tile it, ]");
  auto single = parse_ideas("{\"text\": \"fuse the two passes\", \"family\": \"fusion\", \"rationale\": \"one read\"}");
  ASSERT_TRUE(single.ok()) << single.failure;
  ASSERT_EQ(single.ideas.size(), 1u);
  EXPECT_EQ(single.ideas[0].idea.rationale, "one read");
  EXPECT_FALSE(parse_ideas("{\"model\": \"x\", \"usage\": {}}").ok());
}
