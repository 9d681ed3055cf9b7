// What the model is told about earlier candidates: the last round's wrong result with the case
// the judge found (not a 200-character line), its slow candidates with their time at each size,
// and every seed with its per-size timings.
#include <gtest/gtest.h>

#include "core/number_format.h"
#include "search/llm/chat_completion.h"
#include "search/llm/llm_prompts.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;

namespace {

// What the judge writes for a wrong result (output_comparator.cpp and verifier.cpp), in full.
const std::string kWrongResult =
    "output y: 17 of 1000003 elements differ, worst abs error 0.75 at index 1000002 (expected 1.5, got 0.75), "
    "first at index 999987 (expected -0.25, got 0), tolerance rtol 0.0001 atol 1e-05 (trial 1 of 3 at size "
    "n=1000003, inputs normal, seed 1234): the last elements past the final full float4 are never written by "
    "the vectorized loop, so the scalar tail that handles n % 4 is missing in this variant";

std::string us(double microseconds) { return format_us(microseconds) + " us"; }

SizeTiming timing(const std::string& size, double original_us, double candidate_us) {
  SizeTiming t;
  t.size_label = size;
  t.baseline.median_us = original_us;
  t.baseline.samples = 50;
  t.candidate.median_us = candidate_us;
  t.candidate.samples = 50;
  t.speedup = original_us / candidate_us;
  t.significant = std::abs(t.speedup - 1) > 0.1;
  return t;
}

}  // namespace

TEST(PromptFeedback, TheLastRoundsWrongResultComesBackWithItsFailingCase) {
  ASSERT_GT(kWrongResult.size(), 300u);
  std::vector<Outcome> history;
  history.push_back(Outcome{
      "r1-i0-b0", "baseline", 1, {"float4", "memory_access", ""}, {}, Verdict::wrong_result, kWrongResult, 0, {}});
  // Alone, round 1 is the latest round: the reason in full, past the 200 and 300 characters.
  EXPECT_NE(format_history(history).find(kWrongResult), std::string::npos);
  history.push_back(Outcome{
      "r2-i0-b0", "baseline", 2, {"float4 again", "memory_access", ""}, {}, Verdict::wrong_result, kWrongResult, 0, {}});
  std::string text = format_history(history);
  // Round 2 is the latest: its failure in full, round 1's still shortened.
  EXPECT_NE(text.find(kWrongResult), std::string::npos) << text;
  EXPECT_EQ(text.find(kWrongResult), text.rfind(kWrongResult));
  EXPECT_NE(text.find("characters cut"), std::string::npos);
  // Round 1's line, now shortened, still says where it failed.
  EXPECT_LT(text.find("index 1000002 (expected 1.5, got 0.75)"), text.find(kWrongResult));
  EXPECT_EQ(text.find("scalar tail"), text.find(kWrongResult) + kWrongResult.find("scalar tail"));
}

TEST(PromptFeedback, TheLastRoundsSlowCandidatesComeBackWithTheirPerSizeTimings) {
  std::vector<Outcome> history;
  history.push_back(Outcome{"r1-i1-b0",
                            "baseline",
                            1,
                            {"bigger blocks", "parallelism", ""},
                            {},
                            Verdict::not_faster,
                            "not faster beyond noise",
                            0.97,
                            {timing("n=4096", 4.0, 5.0), timing("n=1048576", 40.0, 38.0)}});
  std::string text = format_history(history);
  EXPECT_NE(text.find("  - n=4096: " + us(5) + " against the original's " + us(4) + " (" + format_speedup(0.8) + ")\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  - n=1048576: " + us(38) + " against the original's " + us(40) + " (" +
                      format_speedup(40.0 / 38.0) + ", within noise)\n"),
            std::string::npos)
      << text;
  // A later round makes it an earlier candidate: one line again.
  history.push_back(
      Outcome{"r2-i0-b0", "r1-i1-b0", 2, {"x", "fusion", ""}, {}, Verdict::compile_error, "error", 0, {}});
  EXPECT_EQ(format_history(history).find("n=4096"), std::string::npos);
}

TEST(PromptFeedback, SeedsAreShownWithTheirPerSizeTimings) {
  kb::testing::TestProject p;
  ProposalContext ctx;
  ctx.config = &p.config;
  ctx.spec = &p.spec();
  ctx.original_source = "void launch_k(float* y, int n) {}\n";
  ctx.round = 2;
  EvalResult good_eval;
  good_eval.timings = {timing("n=4096", 4.0, 3.0), timing("n=1048576", 40.0, 10.0)};
  good_eval.timings[1].candidate_pct_of_floor = 80;
  EvalResult base_eval;
  base_eval.timings = {timing("n=4096", 4.0, 4.0), timing("n=1048576", 40.0, 40.0)};
  Seed good{"r1-i0-b0", {"float4", "memory_access", ""}, Variant{"// good\n", {}, {}, ""}, 2.3, good_eval};
  Seed base{"baseline", {"the original code", "original", ""}, Variant{ctx.original_source, {}, {}, ""}, 1.0, base_eval};
  ctx.seeds = {good, base};
  config::LlmConfig llm;
  PromptBuilder prompts(ctx, llm);
  const std::string ideas = prompts.ideas(5).messages[1].content;
  EXPECT_NE(ideas.find("- n=4096: " + us(3) + " against the original's " + us(4) + " (" + format_speedup(4.0 / 3.0) +
                       ")\n"),
            std::string::npos)
      << ideas;
  EXPECT_NE(ideas.find("- n=1048576: " + us(10) + " against the original's " + us(40) + " (" + format_speedup(4) +
                       "), at 80% of the roofline floor"),
            std::string::npos)
      << ideas;
  EXPECT_NE(ideas.find("### baseline (" + format_speedup(1) +
                       " vs the original): the original source above\n- n=4096: " + us(4) + "\n"),
            std::string::npos)
      << ideas;

  BranchRequest br;
  br.idea.idea = {"unroll", "control_flow", ""};
  br.seed = good;
  br.id_prefix = "r2-i0";
  const std::string impl = prompts.implement(br, 0).messages[1].content;
  EXPECT_NE(impl.find("(" + format_speedup(2.3) + " vs the original)\n- n=4096: " + us(3) + " against the original's " +
                      us(4)),
            std::string::npos)
      << impl;
}

TEST(PromptFeedback, AKnownContextShortensTheHistoryThenLeavesOutOtherSeedsCodeThenExamples) {
  kb::testing::TestProject p;
  ProposalContext ctx;
  ctx.config = &p.config;
  ctx.spec = &p.spec();
  ctx.original_source = "void launch_k(float* y, int n) {}\n";
  ctx.round = 3;
  for (int i = 0; i < 60; ++i)
    ctx.history.push_back(Outcome{"r1-i" + std::to_string(i) + "-b0",
                                  "baseline",
                                  1,
                                  {"idea number " + std::to_string(i) + std::string(200, '.'), "memory_access", ""},
                                  {},
                                  Verdict::compile_error,
                                  "error",
                                  0,
                                  {}});
  const std::string big_code(6'000, 'x');
  Seed best{"r2-i0-b0", {"best", "memory_access", ""}, Variant{"// BEST " + big_code + "\n", {}, {}, ""}, 3.0, {}};
  Seed second{"r2-i1-b0", {"second", "parallelism", ""}, Variant{"// SECOND " + big_code + "\n", {}, {}, ""}, 2.0, {}};
  ctx.seeds = {best, second};
  ctx.examples = {ArchiveExample{"other", "H100", {"an example", "fusion", ""}, 2.0, std::string(2'500, '+')}};
  config::LlmConfig llm;

  // Unknown context: everything, and no note.
  ChatRequest whole = PromptBuilder(ctx, llm).ideas(5);
  const std::string all = whole.messages[1].content;
  EXPECT_NE(all.find("idea number 20"), std::string::npos);
  EXPECT_NE(all.find("// SECOND"), std::string::npos);
  EXPECT_NE(all.find("an example"), std::string::npos);
  EXPECT_FALSE(whole.summary.contains("trimmed"));
  const int64_t whole_tokens = estimated_prompt_tokens(whole);

  // A context that holds all of it twice over: nothing is left out.
  EXPECT_FALSE(PromptBuilder(ctx, llm, {}, whole_tokens * 2 + 10).ideas(5).summary.contains("trimmed"));

  // A little less: only the history is shortened.
  ChatRequest shorter = PromptBuilder(ctx, llm, {}, whole_tokens * 2 - 2'000).ideas(5);
  EXPECT_LE(estimated_prompt_tokens(shorter), whole_tokens - 1'000);
  const std::string s = shorter.messages[1].content;
  EXPECT_NE(s.find("earlier candidates not shown"), std::string::npos) << s;
  EXPECT_EQ(s.find("idea number 20."), std::string::npos);
  EXPECT_NE(s.find("idea number 59"), std::string::npos);  // the latest stay
  EXPECT_NE(s.find("// SECOND"), std::string::npos);
  EXPECT_NE(s.find("an example"), std::string::npos);
  EXPECT_NE(shorter.summary["trimmed"].get<std::string>().find("earlier candidates"), std::string::npos);

  // Less still: the second seed's code goes, then the examples; the best seed's code stays.
  const int64_t small = estimated_prompt_tokens(PromptBuilder(ctx, llm, {}, 1).ideas(5));
  ChatRequest least = PromptBuilder(ctx, llm, {}, small * 2).ideas(5);
  const std::string l = least.messages[1].content;
  EXPECT_NE(l.find("// BEST"), std::string::npos);
  EXPECT_EQ(l.find("// SECOND"), std::string::npos) << l;
  EXPECT_NE(l.find("### r2-i1-b0"), std::string::npos);  // still named, with its timings
  EXPECT_NE(l.find("(its code is left out to fit the model's context)"), std::string::npos);
  EXPECT_EQ(l.find("an example"), std::string::npos);
  EXPECT_LE(estimated_prompt_tokens(least), small * 2 / 2);
  EXPECT_NE(least.summary["trimmed"].get<std::string>().find("the code of the best seed only"), std::string::npos);

  // The implement prompt shortens its history the same way; its seed's code is what it is for.
  BranchRequest br;
  br.idea.idea = {"unroll", "control_flow", ""};
  br.seed = second;
  br.id_prefix = "r3-i0";
  ChatRequest impl = PromptBuilder(ctx, llm, {}, small * 2).implement(br, 0);
  EXPECT_NE(impl.messages[1].content.find("// SECOND"), std::string::npos);
  EXPECT_NE(impl.messages[1].content.find("earlier candidates not shown"), std::string::npos);
}
