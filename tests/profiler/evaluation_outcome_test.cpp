// Verdicts from the harness child's end: crash, hang, memory, missing result; the accept rule;
// a job cut down to some size sets; the device calibration cache.
#include "profiler/evaluate/verdict/evaluation_outcome.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/evaluate/jobs/machine_cache.h"
#include "tests/support/scoped_env.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

HarnessRun exited(int code, const std::string& err = "", std::optional<EvalResult> result = std::nullopt) {
  HarnessRun r;
  r.process.started = true;
  r.process.exit_code = code;
  r.process.err = err;
  r.process.wall_s = 2;
  r.result = std::move(result);
  if (!r.result) r.result_error = "no result file";
  return r;
}

TEST(HarnessOutcome, HangIsTimedOut) {
  HarnessRun r = exited(-1);
  r.process.timed_out = true;
  r.process.signal = SIGKILL;
  r.process.wall_s = 120.02;
  EvalResult e = classify_harness_run(r, 16384);
  EXPECT_EQ(e.verdict, Verdict::timed_out);
  EXPECT_EQ(e.reason, "hung: killed after 120 s");
}

TEST(HarnessOutcome, MemoryHogIsRejected) {
  HarnessRun r = exited(-1);
  r.process.killed_for_memory = true;
  r.process.signal = SIGKILL;
  r.process.peak_rss_mb = 20000;
  EvalResult e = classify_harness_run(r, 16384);
  EXPECT_EQ(e.verdict, Verdict::rejected);
  EXPECT_NE(e.reason.find("20000 MiB"), std::string::npos);
  EXPECT_NE(e.reason.find("16384"), std::string::npos);
}

TEST(HarnessOutcome, CandidateCrashNamesTheKnownCauseNotTheLine) {
  const std::string err =
      "kb-harness [info] verifying\n"
      "kb-harness: candidate crashed: an illegal memory access was encountered (cudaErrorIllegalAddress) after "
      "launching the candidate at n=1048576, trial 1\n";
  EvalResult e = classify_harness_run(exited(kHarnessCandidateCrashed, err), 0);
  EXPECT_EQ(e.verdict, Verdict::crashed);
  EXPECT_EQ(e.reason,
            "the candidate crashed: an illegal memory access was encountered (the harness ended with exit code 3)");

  // A crash the harness could not report itself (a signal) or only logged.
  HarnessRun sig = exited(-1, "something\n");
  sig.process.signal = SIGSEGV;
  EvalResult s = classify_harness_run(sig, 0);
  EXPECT_EQ(s.verdict, Verdict::crashed);
  EXPECT_NE(s.reason.find("SIGSEGV"), std::string::npos);

  EvalResult illegal = classify_harness_run(exited(1, "CUDA error: an illegal memory access was encountered\n"), 0);
  EXPECT_EQ(illegal.verdict, Verdict::crashed);
  EXPECT_EQ(illegal.reason,
            "the candidate crashed: an illegal memory access was encountered (the harness ended with exit code 1)");
}

// The judge's sealed result says where the candidate crashed (the alignment pass's case, say):
// that follows the known cause, which still comes from the closed list.
TEST(HarnessOutcome, CandidateCrashKeepsTheJudgesAccountOfWhere) {
  HarnessRun run = exited(kHarnessCandidateCrashed, "kb-harness: candidate crashed: misaligned address\n");
  EvalResult sealed;
  sealed.verdict = Verdict::crashed;
  sealed.reason = "the candidate crashed: the candidate's process exited during call (the alignment check with every "
                  "buffer 4 bytes past a 256-byte boundary at size n=1000003, which the original accepts)";
  run.result = sealed;
  const EvalResult e = classify_harness_run(run, 0);
  EXPECT_EQ(e.verdict, Verdict::crashed);
  EXPECT_EQ(e.reason, "the candidate crashed: misaligned address (the harness ended with exit code 3); the judge: " +
                          sealed.reason);
}

// The original faulting in a case the alignment pass then skipped: its crash line and the judge's
// log of the skip are no crash of the candidate, whose sealed verdict stands.
TEST(HarnessOutcome, TheOriginalsSkippedFaultIsNotTheCandidatesCrash) {
  EvalResult sealed;
  sealed.verdict = Verdict::accepted;
  sealed.reason = "faster";
  const EvalResult e = classify_harness_run(
      exited(0,
             "kb-harness: baseline crashed: an illegal memory access was encountered during the alignment check\n"
             "kb-harness [info] skipped: alignment offset 4 bytes (...): the original faults (an illegal memory "
             "access was encountered)\n"
             "kb-harness baseline [error] the call faulted: an illegal memory access was encountered\n",
             sealed),
      0);
  EXPECT_EQ(e.verdict, Verdict::accepted) << e.reason;
  EXPECT_EQ(e.reason, "faster");
  // A line of the candidate's own still counts.
  const EvalResult c = classify_harness_run(exited(0, "CUDA error: an illegal memory access was encountered\n", sealed),
                                            0);
  EXPECT_EQ(c.verdict, Verdict::crashed);
}

// A candidate shares the harness's process, so it can print the harness's crash line with
// anything after it (the secret it read): the reason keeps none of that text.
TEST(HarnessOutcome, ForgedCrashLineDoesNotBecomeTheReason) {
  const std::string stolen = "kbprobe-stolen-value-7f3a9c";
  EvalResult e = classify_harness_run(exited(kHarnessCandidateCrashed,
                                             "kb-harness: candidate crashed: " + stolen + "\n"),
                                      0);
  EXPECT_EQ(e.verdict, Verdict::crashed);
  EXPECT_EQ(e.reason, "the candidate crashed (the harness ended with exit code 3)");

  EvalResult baseline = classify_harness_run(exited(kHarnessBaselineCrashed,
                                                    "kb-harness: baseline crashed: " + stolen + "\n"),
                                             0);
  EXPECT_EQ(baseline.verdict, Verdict::infra_error);
  EXPECT_EQ(baseline.reason.find(stolen + "\n"), std::string::npos) << baseline.reason;
  EXPECT_NE(baseline.reason.find("its stderr ends: "), std::string::npos) << "an infra error shows the stderr, marked";

  // What does reach a reason (an infra error's stderr excerpt) is bounded and has token shapes removed.
  const std::string token = "ghp_" + std::string(36, 'a');
  EvalResult infra = classify_harness_run(exited(1, std::string(5000, 'x') + " " + token + "\n"), 0);
  EXPECT_EQ(infra.verdict, Verdict::infra_error);
  EXPECT_EQ(infra.reason.find(token), std::string::npos) << infra.reason;
  EXPECT_LT(infra.reason.size(), 600u);
}

// A pass that asks the original first and skips a condition it faults on (stream_pass.h) leaves the
// original's crash line in stderr; the run then ends normally with the candidate's verdict.
TEST(HarnessOutcome, AnOriginalsCrashLineInASuccessfulRunIsNotTheCandidatesCrash) {
  EvalResult accepted;
  accepted.verdict = Verdict::accepted;
  accepted.reason = "correct and faster";
  const EvalResult e = classify_harness_run(
      exited(0,
             "kb-harness: baseline crashed: an illegal memory access was encountered (cudaErrorIllegalAddress) "
             "during verification with the per-thread default stream\n",
             accepted),
      0);
  EXPECT_EQ(e.verdict, Verdict::accepted) << e.reason;
  EXPECT_EQ(e.reason, "correct and faster");
  // The candidate's own illegal address is still a crash, whatever the original's line says.
  const EvalResult c = classify_harness_run(exited(0,
                                                   "kb-harness: baseline crashed: an illegal memory access was "
                                                   "encountered\nCUDA error: an illegal memory access was encountered\n",
                                                   accepted),
                                            0);
  EXPECT_EQ(c.verdict, Verdict::crashed) << c.reason;
}

TEST(HarnessOutcome, BaselineCrashAndHarnessFailuresAreInfraErrors) {
  EvalResult b = classify_harness_run(exited(kHarnessBaselineCrashed,
                                             "kb-harness: baseline crashed: unspecified launch failure\n"),
                                      0);
  EXPECT_EQ(b.verdict, Verdict::infra_error);
  EXPECT_NE(b.reason.find("original kernel crashed"), std::string::npos);
  EXPECT_NE(b.reason.find("unspecified launch failure"), std::string::npos);

  EvalResult missing = classify_harness_run(exited(0), 0);
  EXPECT_EQ(missing.verdict, Verdict::infra_error);
  EXPECT_NE(missing.reason.find("no result file"), std::string::npos);

  EvalResult usage = classify_harness_run(exited(2, "kb-harness: job.json: args[0].counts: expected 3 values\n"), 0);
  EXPECT_EQ(usage.verdict, Verdict::infra_error);
  EXPECT_NE(usage.reason.find("args[0].counts"), std::string::npos);

  HarnessRun never;
  never.process.start_error = "'kernelbot-harness' not found in PATH";
  EXPECT_EQ(classify_harness_run(never, 0).verdict, Verdict::infra_error);
}

TEST(HarnessOutcome, ResultOfACleanRunIsKept) {
  EvalResult written;
  written.verdict = Verdict::wrong_result;
  written.reason = "output y differs at 12 of 1048576 elements";
  EvalResult e = classify_harness_run(exited(0, "", written), 0);
  EXPECT_EQ(e.verdict, Verdict::wrong_result);
  EXPECT_EQ(e.reason, written.reason);
}

SizeTiming size(const std::string& label, double speedup, bool significant) {
  SizeTiming t;
  t.size_label = label;
  t.speedup = speedup;
  t.significant = significant;
  return t;
}

EvalResult verified(std::vector<SizeTiming> timings) {
  EvalResult r;
  r.verdict = Verdict::pending;
  r.verification.passed = true;
  r.timings = std::move(timings);
  return r;
}

TEST(AcceptRule, AcceptsOnlyVerifiedSignificantSpeedupsOverTheMinimum) {
  EvalResult a = verified({size("n=1", 2.0, true), size("n=2", 1.5, true), size("n=3", 1.0, false)});
  apply_accept_rule(a, 1.05);
  EXPECT_EQ(a.verdict, Verdict::accepted);
  EXPECT_NEAR(a.speedup, std::cbrt(3.0), 1e-9);
  EXPECT_NE(a.reason.find("significant at 2 of 3 sizes"), std::string::npos) << a.reason;

  EvalResult small = verified({size("n=1", 1.03, true)});
  apply_accept_rule(small, 1.05);
  EXPECT_EQ(small.verdict, Verdict::not_faster);
  EXPECT_NE(small.reason.find("under the required 1.050x"), std::string::npos) << small.reason;

  EvalResult noise = verified({size("n=1", 1.2, false), size("n=2", 1.1, false)});
  apply_accept_rule(noise, 1.05);
  EXPECT_EQ(noise.verdict, Verdict::not_faster);
  EXPECT_NE(noise.reason.find("beyond the noise"), std::string::npos);

  EvalResult regress = verified({size("n=1", 3.0, true), size("n=2", 0.8, true)});
  apply_accept_rule(regress, 1.05);
  EXPECT_EQ(regress.verdict, Verdict::not_faster);
  EXPECT_NE(regress.reason.find("slower than the original at n=2"), std::string::npos);

  // The harness said accepted, but the evidence says the check did not pass.
  EvalResult unproven = verified({size("n=1", 3.0, true)});
  unproven.verdict = Verdict::accepted;
  unproven.verification.passed = false;
  unproven.verification.failure = "output y: 5 elements never written";
  apply_accept_rule(unproven, 1.05);
  EXPECT_EQ(unproven.verdict, Verdict::wrong_result);
  EXPECT_EQ(unproven.reason, "output y: 5 elements never written");

  EvalResult crashed = verified({});
  crashed.verdict = Verdict::crashed;
  apply_accept_rule(crashed, 1.05);
  EXPECT_EQ(crashed.verdict, Verdict::crashed);

  EvalResult untimed = verified({});
  apply_accept_rule(untimed, 1.05);
  EXPECT_EQ(untimed.verdict, Verdict::not_faster);
}

TEST(AcceptRule, WorkEscapingTheCallersStreamIsRejected) {
  // Recorded shape of a side-stream saxpy on the H100: ~0.2 us event-timed, ~10 us on the GPU.
  EvalResult side = verified({size("n=1048576", 1700, true)});
  side.timings[0].candidate.median_us = 0.18;
  side.timings[0].candidate.cupti_span_us = 10.5;
  apply_accept_rule(side, 1.05);
  EXPECT_EQ(side.verdict, Verdict::rejected);
  EXPECT_NE(side.reason.find("escapes the caller's stream at n=1048576"), std::string::npos) << side.reason;

  // Recorded on an H200 (make demo, bias_gelu at C=3072, N=8192): an honest block-size variant's
  // traced call ran 8% over its event-timed median, the original's 0.5% under. Over the judge's
  // 5% note, under 1.25x the original's own ratio: the span alone is no evidence of escaped work.
  EvalResult slight = verified({size("C=3072,N=8192", 5.5, true)});
  slight.timings[0].baseline.median_us = 476.0;
  slight.timings[0].baseline.cupti_span_us = 473.6;
  slight.timings[0].candidate.median_us = 86.7;
  slight.timings[0].candidate.cupti_span_us = 93.8;
  ASSERT_TRUE(escaped_timed_region(slight.timings[0].candidate));
  apply_accept_rule(slight, 1.05);
  EXPECT_EQ(slight.verdict, Verdict::accepted) << slight.reason;

  // Past the allowance: a third of the work after the caller's stream saw the call done.
  EvalResult third = slight;
  third.verdict = Verdict::pending;
  third.timings[0].candidate.cupti_span_us = 86.7 * 1.3;
  apply_accept_rule(third, 1.05);
  EXPECT_EQ(third.verdict, Verdict::rejected) << third.reason;
  EXPECT_NE(third.reason.find("escapes the caller's stream at C=3072,N=8192"), std::string::npos) << third.reason;

  // An original that itself runs 15% over its median (a memset and an atomics kernel) allows a
  // candidate 1.25x that; a candidate past it is rejected all the same.
  EvalResult atomics = verified({size("n=1", 3.0, true)});
  atomics.timings[0].baseline.median_us = 10;
  atomics.timings[0].baseline.cupti_span_us = 11.5;
  atomics.timings[0].candidate.median_us = 10;
  atomics.timings[0].candidate.cupti_span_us = 14;
  apply_accept_rule(atomics, 1.05);
  EXPECT_EQ(atomics.verdict, Verdict::accepted) << atomics.reason;
  atomics.verdict = Verdict::pending;
  atomics.timings[0].candidate.cupti_span_us = 14.5;
  apply_accept_rule(atomics, 1.05);
  EXPECT_EQ(atomics.verdict, Verdict::rejected) << atomics.reason;

  // The judge's note is text for people; its words alone decide nothing.
  EvalResult worded = verified({size("n=1", 3.0, true)});
  worded.timings[0].candidate.notes = "the event-timed median 1 us is 90% below the GPU span 10 us CUPTI traced for "
                                      "one call: work escaped the timed region";
  apply_accept_rule(worded, 1.05);
  EXPECT_EQ(worded.verdict, Verdict::accepted) << worded.reason;

  // Graph-timed samples hold many launches: a call's gaps shrink, so only under half the span counts.
  EvalResult graph = verified({size("n=1", 2.0, true)});
  graph.timings[0].candidate.median_us = 3;
  graph.timings[0].candidate.cupti_span_us = 4;
  graph.timings[0].candidate.launches_per_sample = 20;
  apply_accept_rule(graph, 1.05);
  EXPECT_EQ(graph.verdict, Verdict::accepted);

  // Recorded on the H100: the side-stream candidate made the harness time 200 back-to-back
  // launches per sample, 0.04 us each, for ~10 us of GPU work per call. Its timings alone are no
  // evidence here: the span of a graph-timed sample is not one call's, and 10769% of a floor built
  // from an estimated byte count is advice (issue #10, item 5). What rejects it is measured: the
  // verification traces every launch of every call (CUPTI) and the wall clock of the parent
  // (tests/profiler/eval_gpu_test.cpp, SideStreamWorkIsRejected). The floor is reported, not used.
  EvalResult b2b = verified({size("n=1048576", 563.8, true)});
  b2b.timings[0].candidate.median_us = 0.039;
  b2b.timings[0].candidate.cupti_span_us = 9.8;
  b2b.timings[0].candidate.launches_per_sample = 200;
  b2b.timings[0].floor_us = 4.2;  // 12 MB over the H100's measured ~2970 GB/s
  b2b.timings[0].candidate_pct_of_floor = 4.2 / 0.039 * 100;
  apply_accept_rule(b2b, 1.05);
  EXPECT_NE(b2b.verdict, Verdict::rejected) << b2b.reason;
  EXPECT_EQ(b2b.reason.find("impossible"), std::string::npos) << b2b.reason;
  EXPECT_NE(b2b.reason.find("roofline advice: at n=1048576 the candidate's 0.039 us is 10769% of the roofline floor"),
            std::string::npos)
      << b2b.reason;
  EXPECT_NE(b2b.timings[0].candidate.notes.find("roofline advice:"), std::string::npos);

  // Recorded on the H100: a correct float4 saxpy at n=1000003, timed several launches per sample,
  // whose traced span of one call read 389 us against a 5.91 us median. At 68% of the roofline
  // floor nothing is impossible, so the unreliable span must not reject it.
  EvalResult artifact = verified({size("n=1000003", 4.64, true)});
  artifact.timings[0].candidate.median_us = 5.91;
  artifact.timings[0].candidate.cupti_span_us = 389;
  artifact.timings[0].candidate.launches_per_sample = 8;
  artifact.timings[0].floor_us = 4.04;
  artifact.timings[0].candidate_pct_of_floor = 4.04 / 5.91 * 100;
  apply_accept_rule(artifact, 1.05);
  EXPECT_EQ(artifact.verdict, Verdict::accepted) << artifact.reason;

  // The same at one launch per sample: one size's span reads 325 us against 9.94 us, the other
  // sizes agree with their medians. An escape happens at every size; a bad reading at one does not.
  EvalResult one_size = verified(
      {size("n=1048576", 4.6, true), size("n=16777216", 4.3, true), size("n=1000003", 3.95, true)});
  for (auto& t : one_size.timings) {
    t.candidate.median_us = 10;
    t.candidate.cupti_span_us = 10.2;
  }
  one_size.timings[2].candidate.median_us = 9.94;
  one_size.timings[2].candidate.cupti_span_us = 325;
  apply_accept_rule(one_size, 1.05);
  EXPECT_EQ(one_size.verdict, Verdict::accepted) << one_size.reason;
  for (auto& t : one_size.timings) t.candidate.cupti_span_us = 325;  // escaping everywhere
  one_size.verdict = Verdict::pending;
  apply_accept_rule(one_size, 1.05);
  EXPECT_EQ(one_size.verdict, Verdict::rejected);

  // Without a CUPTI span, a timing far beyond the roofline floor is no longer called impossible:
  // the floor comes from an estimated byte count. Not rejected by it; the advice is reported.
  EvalResult impossible = verified({size("n=16777216", 10628, true)});
  impossible.timings[0].candidate.median_us = 0.036;
  impossible.timings[0].floor_us = 68.1;
  impossible.timings[0].candidate_pct_of_floor = 189062.4;
  apply_accept_rule(impossible, 1.05);
  EXPECT_NE(impossible.verdict, Verdict::rejected) << impossible.reason;
  EXPECT_EQ(impossible.reason.find("impossible"), std::string::npos) << impossible.reason;
  EXPECT_NE(impossible.reason.find("roofline advice: at n=16777216"), std::string::npos) << impossible.reason;
  EXPECT_NE(impossible.timings[0].candidate.notes.find("189062% of the roofline floor of 68.1 us"), std::string::npos)
      << impossible.timings[0].candidate.notes;

  EvalResult honest = verified({size("n=1", 2.0, true)});
  honest.timings[0].candidate.median_us = 10.4;
  honest.timings[0].candidate.cupti_span_us = 10.0;
  apply_accept_rule(honest, 1.05);
  EXPECT_EQ(honest.verdict, Verdict::accepted);
}

// Issue #10, item 5: a gather reads a fraction of the bytes the spec's default estimate counts
// (inputs read once, outputs written once), so the original itself runs "above" its floor. Neither
// it (timed against itself) nor a faster candidate may be rejected for that.
TEST(AcceptRule, TheRooflineFloorIsAdviceNotEvidence) {
  EvalResult itself = verified({size("n=16777216", 1.0, false)});
  itself.timings[0].baseline.median_us = itself.timings[0].candidate.median_us = 40;
  itself.timings[0].floor_us = 600;  // 1.8 GB estimated, 0.12 GB really moved
  itself.timings[0].baseline_pct_of_floor = itself.timings[0].candidate_pct_of_floor = 1500;
  apply_accept_rule(itself, 1.05);
  EXPECT_EQ(itself.verdict, Verdict::not_faster) << itself.reason;
  EXPECT_NE(itself.reason.find("roofline advice: at n=16777216 the candidate's 40 us is 1500%"), std::string::npos)
      << itself.reason;
  EXPECT_NE(itself.reason.find("decides no verdict"), std::string::npos) << itself.reason;

  EvalResult faster = verified({size("n=16777216", 2.0, true), size("n=1048576", 1.9, true)});
  for (auto& t : faster.timings) {
    t.candidate.median_us = 20;
    t.floor_us = 600;
    t.candidate_pct_of_floor = 3000;
  }
  apply_accept_rule(faster, 1.05);
  EXPECT_EQ(faster.verdict, Verdict::accepted) << faster.reason;
  for (const auto& t : faster.timings)
    EXPECT_NE(t.candidate.notes.find("roofline advice: at " + t.size_label), std::string::npos) << t.candidate.notes;
  apply_accept_rule(faster, 1.05);  // applied again: the note is not repeated, the reason keeps it
  EXPECT_EQ(faster.timings[0].candidate.notes.find("roofline advice", 1), std::string::npos);
  EXPECT_NE(faster.reason.find("roofline advice"), std::string::npos) << faster.reason;

  // At or under the floor there is nothing to say.
  SizeTiming under = size("n=1", 1.5, true);
  under.floor_us = 10;
  under.candidate_pct_of_floor = 95;
  under.baseline_pct_of_floor = 60;
  EXPECT_EQ(roofline_advice(under, "candidate"), "");
  EXPECT_EQ(roofline_advice(under, "baseline"), "");
  under.baseline_pct_of_floor = 250;
  EXPECT_NE(roofline_advice(under, "baseline").find("the baseline's"), std::string::npos);
  under.floor_us = 0;  // unknown floor
  EXPECT_EQ(roofline_advice(under, "baseline"), "");
}

TEST(SanitizerJob, SizeSetsTheSmallestAndTheLargest) {
  HarnessJob job;
  job.size_labels = {"n=100", "n=10", "n=1000"};
  job.bytes = {400, 40, 4000};
  job.flops = {1, 2, 3};
  HarnessArg x;
  x.counts = {100, 10, 1000};
  x.ranges = {{0, 100}, {0, 10}, {0, 1000}};  // ids into a table of n rows
  HarnessArg n;
  n.values = {"100", "10", "1000"};
  job.args = {x, n};
  ASSERT_EQ(smallest_size_index(job), 1u);
  HarnessJob one = single_size_job(job, 1);
  EXPECT_EQ(one.size_labels, (std::vector<std::string>{"n=10"}));
  EXPECT_EQ(one.bytes, (std::vector<double>{40}));
  EXPECT_EQ(one.flops, (std::vector<double>{2}));
  EXPECT_EQ(one.args[0].counts, (std::vector<int64_t>{10}));
  EXPECT_EQ(one.args[1].values, (std::vector<std::string>{"10"}));
  EXPECT_EQ(one.args[0].ranges, (std::vector<std::vector<int64_t>>{{0, 10}})) << "the range of that size set";

  // Several sets, in the order asked for: the smallest, then the largest.
  ASSERT_EQ(largest_size_index(job), 2u);
  HarnessJob two = size_sets_job(job, {smallest_size_index(job), largest_size_index(job)});
  EXPECT_EQ(two.size_labels, (std::vector<std::string>{"n=10", "n=1000"}));
  EXPECT_EQ(two.bytes, (std::vector<double>{40, 4000}));
  EXPECT_EQ(two.flops, (std::vector<double>{2, 3}));
  EXPECT_EQ(two.args[0].counts, (std::vector<int64_t>{10, 1000}));
  EXPECT_EQ(two.args[1].values, (std::vector<std::string>{"10", "1000"}));
  EXPECT_EQ(two.args[0].ranges, (std::vector<std::vector<int64_t>>{{0, 10}, {0, 1000}}));
  EXPECT_EQ(two.metrics_size, -1);

  // Equal sizes: the first of them, either way; generalization sets never count.
  job.bytes = {4000, 40, 4000};
  EXPECT_EQ(largest_size_index(job), 0u);
  job.verify_only_sizes = 1;  // n=1000 is a generalization set
  EXPECT_EQ(largest_size_index(job), 0u);
  job.bytes = {400, 40, 4000};
  EXPECT_EQ(largest_size_index(job), 0u) << "the configured sets are n=100 and n=10";
  EXPECT_EQ(size_sets_job(job, {1, 0}).verify_only_sizes, 0);
}

TEST(DeviceCalibration, MeasuredOncePerDeviceAndDriver) {
  fs::path dir = fs::temp_directory_path() / ("kb-calib-" + std::to_string(getpid()));
  fs::remove_all(dir);
  DeviceInfo queried;
  queried.index = 0;
  queried.name = "NVIDIA H100 80GB HBM3";
  queried.uuid = "GPU-1234";
  queried.driver_version = "580.1";
  int calls = 0;
  auto calibrate = [&] {
    ++calls;
    DeviceInfo d = queried;
    d.driver_version = "580.159.04";  // the harness reads NVML's spelling of the driver
    d.copy_bandwidth_gbps = 3000 + calls;
    d.fp32_tflops = 50;
    return d;
  };
  DeviceInfo first = calibrated_device(queried, dir, calibrate);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first.copy_bandwidth_gbps, 3001);
  EXPECT_TRUE(fs::exists(dir / "device-GPU-1234.json"));

  queried.index = 1;  // the same GPU numbered differently (CUDA_VISIBLE_DEVICES)
  DeviceInfo again = calibrated_device(queried, dir, calibrate);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(again.copy_bandwidth_gbps, 3001);
  EXPECT_EQ(again.index, 1);
  EXPECT_EQ(again.driver_version, "580.159.04");

  queried.driver_version = "590.2";
  DeviceInfo updated = calibrated_device(queried, dir, calibrate);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(updated.copy_bandwidth_gbps, 3002);

  std::ofstream(dir / "device-GPU-1234.json") << "garbage";
  calibrated_device(queried, dir, calibrate);
  EXPECT_EQ(calls, 3);

  // A cache that cannot be written (here a file where the folder should be) costs the next run a
  // calibration, not this one its result.
  const fs::path blocked = dir / "a-file";
  std::ofstream(blocked) << "x";
  DeviceInfo unsaved = calibrated_device(queried, blocked / "cache", calibrate);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(unsaved.copy_bandwidth_gbps, 3004);
  calibrated_device(queried, blocked / "cache", calibrate);
  EXPECT_EQ(calls, 5);
  fs::remove_all(dir);
}

// The calibration belongs to the machine: KERNELBOT_CACHE_DIR, else the user's cache folder
// (XDG_CACHE_HOME, else ~/.cache), else the repository's own .kernelbot/.
TEST(DeviceCalibration, KeptInTheUsersCacheFolder) {
  // Each put back as it was when the test ends, whatever the steps below set.
  const kb::testing::ScopedEnv cache_dir("KERNELBOT_CACHE_DIR", std::nullopt), xdg("XDG_CACHE_HOME", "/xdg"),
      home("HOME", "/home/ci");
  const fs::path project = "/repo/.kernelbot";
  EXPECT_EQ(device_cache_dir(project), fs::path("/xdg/kernelbot"));
  setenv("XDG_CACHE_HOME", "relative", 1);  // the specification ignores a relative one
  EXPECT_EQ(device_cache_dir(project), fs::path("/home/ci/.cache/kernelbot"));
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(device_cache_dir(project), fs::path("/home/ci/.cache/kernelbot"));
  unsetenv("HOME");
  EXPECT_EQ(device_cache_dir(project), project);
  setenv("KERNELBOT_CACHE_DIR", "/shared/kb-cache", 1);
  EXPECT_EQ(device_cache_dir(project), fs::path("/shared/kb-cache"));
}

}  // namespace
}  // namespace kb::profiler
