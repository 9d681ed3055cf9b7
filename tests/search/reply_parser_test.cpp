// What models actually write, and what the parser makes of it.
#include "search/llm/reply_parser.h"

#include <gtest/gtest.h>

using namespace kb::search;

namespace {
const std::string kCode =
    "#include <cuda_runtime.h>\n"
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
