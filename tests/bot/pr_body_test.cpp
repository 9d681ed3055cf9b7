// The PR body rendered from a stored search result and the re-verification of its PR text
// (tests/bot/data/saxpy_reverification.json, hand-written with numbers close to but not equal to
// the search's, so a test can tell whose numbers the body shows), against a golden file
// (KB_UPDATE_GOLDEN=1 regenerates it), and what it says when something was not measured or did not run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bot/change/reverify.h"
#include "bot/pr/pr_body.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "tests/bot/git_fixture.h"

namespace {

using kb::testing::read_text;

const std::string kData = std::string(KB_SOURCE_DIR) + "/tests/bot/data/";

kb::search::SearchResult stored_result() {
  auto result = nlohmann::json::parse(read_text(kData + "saxpy_result.json")).get<kb::search::SearchResult>();
  result.reverification =
      nlohmann::json::parse(read_text(kData + "saxpy_reverification.json")).get<kb::search::Reverification>();
  return result;
}

kb::bot::SourceChange change_for(const kb::search::SearchResult& result) {
  std::string original = read_text(std::string(KB_SOURCE_DIR) + "/examples/src/saxpy.cu");
  return kb::bot::make_source_change("src/saxpy.cu", original, "launch_saxpy", result.best()->variant);
}

const kb::bot::PrContext kContext{"saxpy", "src/saxpy.cu", ".kernelbot/results/saxpy/candidate.cu", "0.0.0-test"};

// The hand-written record is of the fixture's own texts: the original and the file publish splices.
TEST(PrBody, TheStoredRecordIsOfTheFixturesTexts) {
  auto result = stored_result();
  EXPECT_EQ(kb::bot::record_mismatch(result.reverification, change_for(result), result.best_id), std::nullopt);
}

TEST(PrBody, MatchesTheGoldenFile) {
  auto result = stored_result();
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  const std::string golden = kData + "saxpy_pr.md";
  const char* update = std::getenv("KB_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") kb::testing::write_text(golden, body);
  EXPECT_EQ(body, read_text(golden)) << "regenerate with KB_UPDATE_GOLDEN=1 after checking the difference";
}

// The original's counters say where they come from: the search counts the winner alone and keeps
// the original's from its measurement at the start; a record whose metrics run counted both says
// nothing more.
TEST(PrBody, SaysWhenTheOriginalsCountersAreFromTheSearchsStart) {
  const std::string line = "- counters of the original from its measurement when the search started\n";
  auto result = stored_result();
  kb::search::CandidateRecord* best = nullptr;
  for (auto& c : result.tree)
    if (c.id == result.best_id) best = &c;
  ASSERT_NE(best, nullptr);
  best->eval.baseline_metrics = result.baseline_profile.baseline_metrics;
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(body.find(line), std::string::npos) << body;
  best->eval.baseline_metrics.values["achieved_occupancy_pct"] += 1;  // counted again, beside the winner
  body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_EQ(body.find(line), std::string::npos) << body;
  EXPECT_NE(body.find("- counters of the search's winner `r2-i0-b0` as the search built it"), std::string::npos);
}

// Every architecture the project builds is in the correctness section with what was done for it;
// a record without target architectures says where kernelbot looked; an older record says nothing.
TEST(PrBody, ListsEveryTargetArchitectureAndWhatWasDoneForIt) {
  auto result = stored_result();
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(body.find("- Every GPU architecture the project builds for (from build/compile_commands.json, the entry "
                      "of src/saxpy.cu: -gencode arch=compute_70,code=sm_70, "),
            std::string::npos)
      << body;
  for (const char* line :
       {"  - `sm_70`: skipped: the original does not compile for it: nvcc fatal   : Unsupported gpu architecture "
        "'compute_70'\n",
        "  - `sm_80`: verified (compute_80 PTX only, run on this GPU (9.0) through the driver's JIT compiler): 5 trials "
        "at 3 size sets and 4 unconfigured sizes, 5 further checks passed\n",
        "  - `sm_90`: verified (the judge's own build (-arch=sm_90), verified and timed above)\n",
        "  - `sm_100`: compiled, not run (sm_100 SASS): newer than this GPU (compute capability 9.0)\n"})
    EXPECT_NE(body.find(line), std::string::npos) << line << "\n" << body;

  auto& v = result.reverification.eval.verification;
  v.archs.clear();
  v.archs_source = "none found (looked at kernelbot.toml [project] target_archs and nvcc_flags, "
                   "compile_commands.json, CMakeCache.txt, CMakeLists.txt): this GPU's architecture only";
  body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(body.find("- Target architectures: none found (looked at "), std::string::npos) << body;
  EXPECT_NE(body.find("CMakeLists.txt): this GPU's architecture only.\n"), std::string::npos) << body;
  v.archs_source.clear();
  body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_EQ(body.find("architecture"), std::string::npos) << body;
}

// A reviewer trusts a PR whose candidates ran without isolation less: the body says so.
TEST(PrBody, SaysWhichSandboxTheCandidatesRanIn) {
  auto result = stored_result();
  std::string namespaced = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(namespaced.find("namespace sandbox (bubblewrap)"), std::string::npos);
  EXPECT_EQ(namespaced.find("process sandbox only"), std::string::npos);
  kb::bot::PrContext process = kContext;
  process.sandbox = "process";
  std::string plain = kb::bot::render_pr_body(result, change_for(result), process);
  EXPECT_NE(plain.find("**process sandbox only**"), std::string::npos);
  EXPECT_EQ(plain.find("namespace sandbox (bubblewrap)"), std::string::npos);
}

TEST(PrBody, SaysWhatMattersInPlainSight) {
  auto result = stored_result();
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  // The PR's numbers are the re-verification's (1.532x), not the search's (1.555x).
  EXPECT_EQ(body.rfind("**`saxpy` is 1.532x faster**", 0), 0u) << body.substr(0, 200);
  EXPECT_NE(body.find("| n=16777216 | 97.22 us | 73.90 us | **1.316x** |"), std::string::npos) << body;
  EXPECT_EQ(body.find("71.42 us"), std::string::npos);
  EXPECT_NE(body.find("timed by `kernelbot run` on NVIDIA H100 80GB HBM3 (2026-11-22T03:41:07Z), after the search: "
                      "1.532x. The search had measured its winner `r2-i0-b0` at 1.555x."),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("seeds 2236067977, 2645751311"), std::string::npos);  // the re-verification's inputs
  EXPECT_NE(
      body.find(
          "git fetch origin kernelbot/saxpy\ngit show FETCH_HEAD:./src/saxpy.cu > /tmp/saxpy.cu\nkernelbot eval --kernel saxpy "
          "--candidate /tmp/saxpy.cu"),
      std::string::npos);
  EXPECT_NE(body.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(body.find("580.159.04"), std::string::npos);
  EXPECT_NE(body.find("<details>"), std::string::npos);
  // The idea path runs original -> round 1 -> round 2, and not through the siblings.
  size_t a = body.find("| `baseline` |"), b = body.find("| `r1-i0-b0` |"), c = body.find("| `r2-i0-b0` |");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(body.find("r1-i1-b0"), std::string::npos);
  EXPECT_EQ(kb::bot::render_pr_title(result), "kernelbot: saxpy 1.532x faster");
}

TEST(PrBody, MissingCountersAndFloorsSaySoInsteadOfInventingNumbers) {
  auto result = stored_result();
  for (auto& c : result.tree)
    if (c.id == result.best_id) {
      c.eval.candidate_metrics.values.clear();
      c.eval.candidate_metrics.status = "insufficient privileges: ERR_NVGPUCTRPERM";
      c.eval.candidate_metrics.registers_per_thread = 0;
    }
  for (auto& t : result.reverification.eval.timings) t.floor_us = 0;
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(body.find("kernelbot: hardware counters not collected: insufficient privileges: ERR_NVGPUCTRPERM"),
            std::string::npos);
  EXPECT_NE(body.find("| achieved occupancy (% of peak warps) | 47.62 | — |"), std::string::npos) << body;
  EXPECT_NE(body.find("| registers per thread (ptxas) | 10 | not reported |"), std::string::npos);
  EXPECT_NE(body.find("not known (no bandwidth or FLOP count)"), std::string::npos);
  EXPECT_EQ(body.find("% → "), std::string::npos);
}

TEST(PrBody, ATimingAboveTheRooflineFloorIsExplainedAsAdvice) {
  auto result = stored_result();
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_EQ(body.find("Above 100% of the roofline floor"), std::string::npos) << "saxpy stays under its floor";
  // The PR's table shows the re-verification of its text (a gather moves less than estimated).
  for (auto& t : result.reverification.eval.timings) t.candidate_pct_of_floor = 240;
  body = kb::bot::render_pr_body(result, change_for(result), kContext);
  EXPECT_NE(body.find("→ 240%"), std::string::npos) << body;
  EXPECT_NE(body.find("Above 100% of the roofline floor: the floor divides the spec's *estimated* bytes"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("It is advice: it decides no verdict."), std::string::npos) << body;
}

TEST(PrBody, WhatTheEditCannotCarryIsShownBeforeTheNumbers) {
  auto result = stored_result();
  for (auto& c : result.tree)
    if (c.id == result.best_id) c.variant.nvcc_flags = {"--use_fast_math"};
  std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  size_t notes = body.find("### Needs your attention\n\n- The winner was compiled with `--use_fast_math`");
  ASSERT_NE(notes, std::string::npos) << body;
  EXPECT_LT(notes, body.find("### Timing"));
  EXPECT_NE(body.find("kernelbot.toml) to get the search's speed (the timings below are of this PR's text, built "
                      "without it).\n\n### Timing"),
            std::string::npos)
      << body;
}

TEST(PrBody, NoWinnerIsAnError) {
  auto result = stored_result();
  result.best_id.clear();
  EXPECT_THROW(kb::bot::render_pr_title(result), kb::Error);
  EXPECT_THROW(kb::bot::render_pr_body(result, {}, kContext), kb::Error);
}

// A PR is rendered only from a text that passed its re-verification.
TEST(PrBody, AWinnerWhosePrTextWasNotReverifiedOrFailedIsAnError) {
  auto result = stored_result();
  const auto change = change_for(result);
  EXPECT_NO_THROW(kb::bot::render_pr_body(result, change, kContext));
  result.reverification.passed = false;
  EXPECT_THROW(kb::bot::render_pr_title(result), kb::Error);
  EXPECT_THROW(kb::bot::render_pr_body(result, change, kContext), kb::Error);
  result.reverification = {};
  EXPECT_THROW(kb::bot::render_pr_body(result, change, kContext), kb::Error);
}

// The passes after the main trials, the sizes nobody configured and the conditions skipped because
// the original fails them are claimed exactly as the re-verification's report lists them.
TEST(PrBody, ThePassesAndSkippedConditionsComeFromTheReport) {
  auto result = stored_result();
  const auto change = change_for(result);
  std::string body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_EQ(body.find("Sizes nobody configured"), std::string::npos) << "not in this record: not claimed";
  EXPECT_EQ(body.find("guard zones"), std::string::npos);
  EXPECT_EQ(body.find("Not held against"), std::string::npos);

  auto& v = result.reverification.eval.verification;
  v.generalization_sizes = {"n=1", "n=17", "n=33554431"};
  v.passes = {"no write outside any buffer: each was lent between guard zones of unpredictable bytes, checked after "
              "every call",
              "alignment at size n=1000: every buffer 4 bytes past a 256-byte boundary"};
  v.skipped_checks = {"alignment offset 8 bytes (every buffer 8 bytes past a 256-byte boundary): the original faults "
                      "(misaligned address)"};
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("- Sizes nobody configured, drawn for this run (verified, not timed): n=1, n=17, n=33554431.\n"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("- No write outside any buffer: each was lent between guard zones"), std::string::npos) << body;
  EXPECT_NE(body.find("- Alignment at size n=1000: every buffer 4 bytes past a 256-byte boundary.\n"), std::string::npos)
      << body;
  EXPECT_NE(body.find("- Not held against this code (1 check skipped, each with its reason, mostly that the "
                      "original itself fails it): alignment offset 8 bytes"),
            std::string::npos)
      << body;
}

// The correctness section claims only checks that ran, each from the re-verification's report.
TEST(PrBody, CorrectnessStatesOnlyTheChecksThatRan) {
  auto result = stored_result();
  const auto change = change_for(result);
  std::string body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_EQ(body.find("extra-strict verification, for speedups"), std::string::npos);  // not claimed as run
  EXPECT_NE(body.find("Not run: the extra-strict verification (it runs for speedups over [verify].strict_speedup = "
                      "10.00x); compute-sanitizer ([verify].sanitize_winner is off)."),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("found nothing"), std::string::npos);

  auto& v = result.reverification.eval.verification;
  v.strict_pass = true;
  v.sanitized = true;
  result.reverification.sanitize = true;
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("- The extra-strict verification, for speedups over [verify].strict_speedup = 10.00x: passed."),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("- compute-sanitizer: found nothing."), std::string::npos)
      << "a record that does not say which tools ran names none";
  EXPECT_EQ(body.find("Not run:"), std::string::npos);

  // Which tools ran, at which size sets: the record's, said exactly.
  v.sanitizer_tools = {"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"};
  v.sanitizer_sizes = {"n=1000003", "n=16777216"};
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("- compute-sanitizer memcheck (with leak check), racecheck, synccheck and initcheck, one call "
                      "each at the smallest and the largest size set (n=1000003, n=16777216): found nothing.\n"),
            std::string::npos)
      << body;
  v.sanitizer_sizes = {"n=4096"};
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("initcheck, one call each at the size set n=4096: found nothing."), std::string::npos) << body;

  // Findings not held against it (the original's own, memory kept): said, with the tools' words.
  v.sanitizer_report = "========= LEAK SUMMARY: 4096 bytes leaked in 1 allocations\n";
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find(": found nothing held against this code; the tools' report: ========= LEAK SUMMARY: 4096 bytes "
                      "leaked in 1 allocations"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find(": found nothing."), std::string::npos);
  v.warnings.push_back("compute-sanitizer memcheck: the candidate keeps 1 allocation (4,096 bytes) of device memory "
                       "that it never frees; allocated once, not on every call");
  v.skipped_checks.push_back("compute-sanitizer initcheck (one call at n=4096): 32 errors; the original has 32");
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find(": found nothing held against this code (what the original does too is listed above; memory it "
                      "keeps allocated is in the warnings below); the tools' report: "),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("Warning: compute-sanitizer memcheck: the candidate keeps 1 allocation"), std::string::npos);
  v.sanitizer_report.clear();
  v.warnings.pop_back();
  v.skipped_checks.pop_back();

  // Asked for, but the report says it did not run: said so, not claimed.
  v.sanitized = false;
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("Not run: compute-sanitizer (asked for, but it did not run)."), std::string::npos) << body;

  // One trial at one size: no claim about consecutive calls.
  v.trials = 1;
  v.sizes = {"n=1048576"};
  body = kb::bot::render_pr_body(result, change, kContext);
  EXPECT_NE(body.find("- 1 trial on fresh random inputs"), std::string::npos) << body;
  EXPECT_EQ(body.find("Consecutive calls"), std::string::npos);
}

}  // namespace

namespace {

// A rebased PR keeps its body but for the measurement: the verdict line, Timing and Correctness
// are the rebased text's, and the rest (the change, the path of ideas, Reproduce) is kept.
TEST(PrBody, ARebasedBodyReplacesOnlyTheMeasurement) {
  auto result = stored_result();
  const std::string body = kb::bot::render_pr_body(result, change_for(result), kContext);
  kb::search::Reverification rebased = result.reverification;
  rebased.eval.speedup = 1.25;
  for (auto& t : rebased.eval.timings) {
    t.candidate.median_us = t.baseline.median_us / 1.25;
    t.speedup = 1.25;
  }
  const std::string out = kb::bot::rebased_pr_body(body, rebased, "saxpy", "main", "9d41c07be2aa5e0f");
  EXPECT_NE(out.find("**`saxpy` is 1.250x faster**"), std::string::npos) << out;
  EXPECT_EQ(out.find("is " + kb::format_speedup(result.reverification.eval.speedup) + " faster**"), std::string::npos)
      << out;
  EXPECT_NE(out.find("after it was rebased onto `main` (9d41c07be2aa)"), std::string::npos) << out;
  EXPECT_NE(out.find("| **1.250x**"), std::string::npos) << out;
  EXPECT_EQ(out.find("The search had measured its winner"), std::string::npos) << out;
  for (const char* kept :
       {"### Reproduce", "How it was found: the path of ideas", "Hardware profile", "### Timing", "### Correctness"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept;
  // A body without those sections (written by hand) keeps its text and gets the measurement after it.
  const std::string plain = kb::bot::rebased_pr_body("Tune saxpy.\n", rebased, "saxpy", "main", "9d41c07be2aa");
  EXPECT_EQ(plain.rfind("**`saxpy` is 1.250x faster**", 0), 0u) << plain;
  EXPECT_NE(plain.find("Tune saxpy.\n"), std::string::npos);
  EXPECT_NE(plain.find("### Re-measured after the rebase"), std::string::npos) << plain;
}

}  // namespace
