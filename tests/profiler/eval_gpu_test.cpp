// `kernelbot eval` end to end on a GPU (label gpu): the real kernelbot binary, the real harness,
// examples/kernelbot.toml, hand-written candidates in tests/profiler/candidates/. Correct faster
// candidates must be accepted with their speedup; each kind of cheating or broken candidate must
// be rejected with a reason a reviewer understands.
//
// KB_TEST_SOURCE_DIR and KERNELBOT_BIN override the compiled-in paths (the device machine runs
// a copy of the tree elsewhere).
#include <gtest/gtest.h>

#include "tests/support/toml_text.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/result_types.h"
#include "profiler/device_query.h"
#include "profiler/sandbox/sandbox_process.h"
#include "tests/profiler/eval_gpu_support.h"

namespace kb {
namespace {
namespace fs = std::filesystem;

using namespace kb::eval_gpu;  // NOLINT(google-build-using-namespace): the tests' own helpers

TEST(EvalGpu, SaxpyFloat4IsAccepted) { expect_accepted(eval("saxpy", "saxpy_fast.cu")); }
TEST(EvalGpu, TransposeTiledIsAccepted) { expect_accepted(eval("transpose", "transpose_tiled.cu")); }
TEST(EvalGpu, RowSumWarpReductionIsAccepted) { expect_accepted(eval("row_sum", "row_sum_warp.cu")); }
TEST(EvalGpu, LayernormWarpPerRowIsAccepted) {
  EvalRun r = eval("layernorm", "layernorm_warp.cu");
  expect_accepted(r);
  // Far over [verify].strict_speedup: believed only after the strict pass.
  if (r.result.speedup > 10) {
    EXPECT_TRUE(r.result.verification.strict_pass);
  }
}

TEST(EvalGpu, WrongResultIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_wrong.cu"), Verdict::wrong_result, "elements differ");
}
TEST(EvalGpu, SkippedOutputIsRejected) {
  expect_rejected(eval("transpose", "transpose_skips_edges.cu"), Verdict::wrong_result, "not fully written");
}
TEST(EvalGpu, CachedAnswerIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_cached.cu"), Verdict::wrong_result, "output y");
}
TEST(EvalGpu, ModifiedInputIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_modifies_input.cu"), Verdict::wrong_result, "x");
}
TEST(EvalGpu, RightAtOneSizeOnlyIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_one_size.cu"), Verdict::wrong_result, "n=16777216");
}
TEST(EvalGpu, SideStreamWorkIsRejected) {
  EvalRun r = eval("saxpy", "saxpy_side_stream.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::rejected || r.result.verdict == Verdict::wrong_result) << describe(r);
  // Rejected on measurements only (issue #10, item 5): the CUPTI trace of every launch (the
  // verification's per-call check, or the span rule: both say "a stream the caller does not wait
  // for"), the wall-clock cross-check ("the parent's clock"), or the judge's comparison of a timed
  // sample's outputs, which differed on the GPU right after the call and matched moments later
  // (seen on an H100, 2026-11-25, once a clean read-back no longer cleared a mismatch). Never the
  // roofline floor, which rests on an estimated byte count and is advice.
  const std::string& why = r.result.reason;
  EXPECT_TRUE(why.find("a stream the caller does not wait for") != std::string::npos ||
              why.find("the parent's clock") != std::string::npos ||
              why.find("the candidate's work lands after its call returns") != std::string::npos)
      << describe(r);
  EXPECT_EQ(why.find("roofline floor"), std::string::npos) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}
// Issue #10: candidates that game the verdict.
void expect_not_accepted(const EvalRun& r) {
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_NE(r.result.verdict, Verdict::accepted) << describe(r);
  EXPECT_NE(r.result.verdict, Verdict::infra_error) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}
TEST(EvalGpu, SkippingWorkOnceVerifiedIsCaughtInTheTimedSamples) {
  expect_rejected(eval("saxpy", "saxpy_stops_after_verification.cu"), Verdict::wrong_result, "timed sample");
}
TEST(EvalGpu, SkippingWorkWhenCalledFastIsNotAccepted) {
  expect_not_accepted(eval("saxpy", "saxpy_skips_when_called_fast.cu"));
}
TEST(EvalGpu, AForgedResultFileIsNeverBelieved) {
  EvalRun r = eval("saxpy", "saxpy_forges_result.cu");
  expect_not_accepted(r);
  if (r.result.verdict == Verdict::rejected) {
    EXPECT_NE(r.result.reason.find("seal"), std::string::npos) << describe(r);
  }
}
TEST(EvalGpu, PerThreadDefaultStreamIsAccepted) {
  const EvalRun r = eval("saxpy", "saxpy_per_thread_stream.cu");
  expect_accepted(r);
  // The runtime refuses launches on the per-thread default stream in the slice's green context:
  // the slice pass is then named as not run, never held against the candidate.
  for (const auto& line : r.result.verification.skipped_checks)
    EXPECT_NE(line.find("a slice of the GPU: not run for the candidate"), std::string::npos) << describe(r);
}
TEST(EvalGpu, Fp16AccumulationIsRejected) {
  expect_rejected(eval("row_sum", "row_sum_half_accumulator.cu"), Verdict::wrong_result, "output out");
}
TEST(EvalGpu, OnePassVarianceIsRejected) {
  expect_rejected(eval("layernorm", "layernorm_one_pass_variance.cu"), Verdict::wrong_result, "output y");
}
TEST(EvalGpu, IllegalAddressCrashes) {
  expect_rejected(eval("saxpy", "saxpy_illegal_address.cu"), Verdict::crashed, "illegal");
}
TEST(EvalGpu, HangIsKilledAtTheTimeout) {
  auto start = std::chrono::steady_clock::now();
  expect_rejected(eval("saxpy", "saxpy_hang.cu", "kernelbot-hang.toml"), Verdict::timed_out, "hung: killed after");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 90);
}
TEST(EvalGpu, CandidateCannotReadGithubToken) {
  expect_accepted(eval("saxpy", "saxpy_reads_token.cu", "kernelbot.toml",
                       {{"GITHUB_TOKEN", "ghp_this_must_not_reach_the_candidate"}, {"OPENAI_API_KEY", "sk-nope"}}));
}

// The escapes of issue #11 from inside the harness on the GPU (the CPU probe tests cover each one
// in detail): a candidate that tries them all and poisons its output if any works is accepted,
// and the host shows none of their traces.
TEST(EvalGpu, SandboxedCandidateEscapesNothing) {
  const std::string secret = "ghp_kbEscapeGpuTest0123456789abcdefABCDEF";
  fs::create_directories(repo() / ".git" / "hooks");
  std::ofstream(repo() / ".git" / "config") << "[http]\n\textraheader = AUTHORIZATION: basic a2Jlc2NhcGU=\n";
  const std::string original_source = [] {
    std::ifstream in(repo() / "src" / "saxpy.cu");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  for (const char* left : {"/tmp/kb-escape-loot", "/tmp/kb-escape-tmp"}) fs::remove(left);
  fs::remove(repo() / ".kernelbot" / "planted.json");

  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(47613);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << "port 47613 is taken";
  ASSERT_EQ(listen(listener, 4), 0);

  EvalRun r = eval("saxpy", "saxpy_escapes.cu", "kernelbot.toml", {{"GITHUB_TOKEN", secret}});
  expect_accepted(r);
  EXPECT_LT(accept(listener, nullptr, nullptr), 0) << "the candidate reached a loopback listener";
  close(listener);
  EXPECT_FALSE(fs::exists(repo() / ".git" / "hooks" / "pre-commit"));
  EXPECT_FALSE(fs::exists(repo() / ".kernelbot" / "planted.json"));
  EXPECT_FALSE(fs::exists("/tmp/kb-escape-loot"));
  EXPECT_FALSE(fs::exists("/tmp/kb-escape-tmp")) << "the sandbox's /tmp is private";
  EXPECT_FALSE(fs::exists("/work/kb-escape-planted"));
  EXPECT_FALSE(fs::exists(fs::path(std::getenv("HOME") ? std::getenv("HOME") : "/root") / "kb-escape-planted"));
  std::ifstream in(repo() / "src" / "saxpy.cu");
  std::stringstream now;
  now << in.rdbuf();
  EXPECT_EQ(now.str(), original_source);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // [n]: the pattern must not match the shell that runs pgrep, whose command line holds it too.
  EXPECT_EQ(std::system("pgrep -f 'kb-escape-daemo[n]' >/dev/null"), 256) << "a daemon outlived its job";
  EXPECT_EQ(r.process.out.find(secret), std::string::npos);
  EXPECT_EQ(r.process.err.find(secret), std::string::npos);
}

// Each job's processes see one GPU, the one it measures on (profiler/sandbox/gpu_confinement.h): a
// candidate that poisons its output when it can reach a second GPU (a second CUDA device or
// /dev/nvidiaN node) is accepted on every GPU of the host, the clock still read through NVML. On
// a host with several GPUs the control, confinement off, must reject it.
TEST(EvalGpu, EachJobSeesOnlyTheGpuItMeasuresOn) {
  const auto devices = profiler::query_devices();
  for (const auto& d : devices) {
    SCOPED_TRACE("GPU " + std::to_string(d.index) + " " + d.uuid);
    EvalRun r = eval_in(repo(), "saxpy", "saxpy_sees_other_gpus.cu", "kernelbot.toml", {},
                        {"--device", std::to_string(d.index)});
    expect_accepted(r);
    EXPECT_EQ(r.result.device.uuid, d.uuid) << "measured on another GPU than asked";
    ASSERT_FALSE(r.result.timings.empty());
    EXPECT_GT(r.result.timings.front().candidate.sm_clock_mhz, 0) << "NVML lost the clock inside the confined sandbox";
  }
  std::printf("[ confined ] %zu GPU(s) on this host\n", devices.size());
  if (devices.size() > 1) {
    EvalRun control = eval_in(repo(), "saxpy", "saxpy_sees_other_gpus.cu", "kernelbot.toml",
                              {{"KERNELBOT_SANDBOX_EVERY_GPU", "1"}},
                              {"--device", std::to_string(devices.back().index)});
    expect_rejected(control, Verdict::wrong_result, "differ");
  }
}

// The forged crash line carries what the candidate could read: the verdict is "crashed" (its own
// doing), and neither the reason nor kernelbot's output holds the secret or .git/config.
TEST(EvalGpu, ForgedCrashLineBecomesNoReason) {
  const std::string secret = "ghp_kbForgeGpuTest0123456789abcdefABCDEF";
  fs::create_directories(repo() / ".git");
  std::ofstream(repo() / ".git" / "config") << "[http]\n\textraheader = kb-forge-git-config-marker\n";
  EvalRun r = eval("saxpy", "saxpy_forges_crash.cu", "kernelbot.toml", {{"GITHUB_TOKEN", secret}});
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::crashed) << describe(r);
  EXPECT_EQ(r.result.reason.rfind("the candidate crashed", 0), 0u) << r.result.reason;
  for (const std::string& text : {r.result.reason, r.process.out, r.process.err}) {
    EXPECT_EQ(text.find(secret), std::string::npos);
    EXPECT_EQ(text.find("kb-forge-git-config-marker"), std::string::npos);
  }
}

// sandbox = "process" still runs and times candidates, and says it is the weaker choice.
TEST(EvalGpu, ProcessSandboxIsChosenExplicitlyAndWarned) {
  EvalRun r = eval("saxpy", "saxpy_fast.cu", "kernelbot-process.toml");
  expect_accepted(r);
  EXPECT_NE(r.process.err.find("sandbox = \"process\""), std::string::npos) << r.process.err;
}

// Issue #12, a stream argument: the launcher's work on the stream the harness gives it is timed
// and verified as before, and an honest faster candidate on that stream wins.
TEST(EvalGpu, StreamArgumentHonestCandidateIsAccepted) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_fast.cu");
  expect_accepted(r);
  // The events on the legacy stream saw all of it: no event-timed median below the CUPTI span.
  for (const auto& t : r.result.timings) {
    // (The roofline advice may say "its work escaped the timing" as one explanation; the
    // measured finding is "work escaped the timed region".)
    EXPECT_EQ(t.baseline.notes.find("work escaped the timed region"), std::string::npos)
        << t.size_label << ": " << t.baseline.notes;
    EXPECT_EQ(t.candidate.notes.find("work escaped the timed region"), std::string::npos)
        << t.size_label << ": " << t.candidate.notes;
  }
}

// A candidate that ignores the stream argument and hides its work on a non-blocking stream of its
// own (which neither the timing events nor the caller wait for) must not win by it: the CUPTI
// trace of the verification calls names the stream it ran on and the stream it was given.
TEST(EvalGpu, IgnoringTheStreamArgumentIsRejectedNamingTheStream) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_ignores_stream.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::rejected || r.result.verdict == Verdict::wrong_result) << describe(r);
  const std::string& why = r.result.reason;
  // Whichever measurement catches it first: the CUPTI trace of a verification call (which names
  // the stream it ran on and the stream it was given), the parent's clock over a batch of calls
  // (seen on an H100, 2026-11-25: at n=16M "the judge's clock measured 126 us per call ... the
  // candidate's timed samples claim 0.17 us"), or the judge's comparison of a timed sample's
  // outputs right after the call (seen later that day: "differed from the original's when the
  // judge compared them on the GPU, and matched when read back moments later").
  const bool by_trace = why.find("not the stream argument 'stream'") != std::string::npos &&
                        why.find("queue the work on the stream argument 'stream'") != std::string::npos;
  const bool by_clock = why.find("the parent's clock") != std::string::npos &&
                        why.find("work outside the timed region") != std::string::npos;
  const bool by_outputs = r.result.verdict == Verdict::wrong_result &&
                          why.find("the candidate's work lands after its call returns") != std::string::npos;
  EXPECT_TRUE(by_trace || by_clock || by_outputs) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), why.c_str());
}

// The same candidate where one call is a few microseconds (n = 4096): its hidden kernel is done
// long before a host clock could tell it from the caller's work (the 20 us slack that let it win
// 251x on an H200, 2026-11-26, at n <= 1M). The call's gate and marker (call_order.h) compare
// GPU timestamps only: the trace of a verification call names the stream, at any size.
TEST(EvalGpu, IgnoringTheStreamArgumentIsCaughtByTheTraceWhenEachCallIsMicroseconds) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream_small", "saxpy_stream_ignores_stream.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::rejected) << describe(r);
  const std::string& why = r.result.reason;
  EXPECT_NE(why.find("does work on a stream the caller does not wait for"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("not the stream argument 'stream'"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("queue the work on the stream argument 'stream'"), std::string::npos) << describe(r);
  // At the first call: its kernel was loaded with the library (CUDA_MODULE_LOADING=EAGER in the
  // servers), so it started while the gate held. Lazily loaded, a first launch waited for the gate
  // to time out, and the first call passed unseen (an H100, 2026-11-26).
  EXPECT_NE(why.find("started"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("trial 1 of 3 at size n=4096 "), std::string::npos) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), why.c_str());
}

// A fork without the join: the side stream waits for the caller's earlier work, so nothing starts
// early, but the caller's stream never waits for it. The marker after the call starts first.
TEST(EvalGpu, ForkingFromTheStreamArgumentWithoutJoiningIsRejectedAsEndingLate) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_forks_without_join.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::rejected) << describe(r);
  const std::string& why = r.result.reason;
  EXPECT_NE(why.find("does work on a stream the caller does not wait for"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("not the stream argument 'stream'"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("after the work queued on the stream argument 'stream' was complete"), std::string::npos)
      << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), why.c_str());
}

// An honest launcher the call gate and marker must not reject: work forked from the stream
// argument onto a stream of the launcher's own and joined back with events. (One that
// synchronizes inside the call keeps the order too, but breaks graph capture: contract_gpu_test.)
void expect_kept_the_stream_order(const EvalRun& r) {
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  EXPECT_EQ(r.result.reason.find("does work on a stream the caller does not wait for"), std::string::npos)
      << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}
TEST(EvalGpu, ForkingAndJoiningASideStreamKeepsTheOrder) {
  expect_kept_the_stream_order(eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_fork_join.cu"));
}

// Short calls are timed several launches per sample as a CUDA graph: captured on the launcher's
// stream (capture on any other stream would record none of its work and fall back to back-to-back
// launches, which the notes would say).
TEST(EvalGpu, ShortKernelWithAStreamArgumentIsTimedAsAGraphOnThatStream) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream_small", "saxpy_stream_fast.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  EXPECT_TRUE(r.result.verification.passed) << describe(r);
  ASSERT_FALSE(r.result.timings.empty()) << describe(r);
  for (const auto& t : r.result.timings) {
    EXPECT_GT(t.baseline.launches_per_sample, 1) << t.size_label << ": " << t.baseline.notes;
    EXPECT_NE(t.baseline.notes.find("timed as a CUDA graph of"), std::string::npos) << t.baseline.notes;
    EXPECT_NE(t.candidate.notes.find("timed as a CUDA graph of"), std::string::npos) << t.candidate.notes;
  }
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}

// A gather whose ids come from range = [0, vocab): the original traps on any id outside it, so a
// fill that ignored the range anywhere (verification trials, the judge's fresh inputs of every
// timed sample, the wall-clock batches) would end the run as the original's failure.
TEST(EvalGpu, GatherIdsStayInTheirRangeThroughVerificationAndTiming) {
  const EvalRun r = eval_in(stream_repo(), "gather", "gather_vec4.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  EXPECT_TRUE(r.result.verification.passed) << describe(r);
  EXPECT_EQ(r.result.timings.size(), 2u) << describe(r);
  for (const auto& t : r.result.timings) EXPECT_GT(t.checked_samples, 0) << t.size_label;
  std::printf("[ %s ] %.2fx: %s\n", to_string(r.result.verdict), r.result.speedup, r.result.reason.c_str());
}

// Guard zones (issue #27, point 4): every buffer the judge lends lies between zones of bytes no
// variant can predict; a write there is a rejection naming the buffer, the side and the offset,
// even when every output element is right.
TEST(EvalGpu, WritingOneElementPastTheEndIsRejectedNamingTheBufferAndTheOffset) {
  const EvalRun r = eval("row_sum", "row_sum_writes_past_end.cu");
  // Each of the 4 bytes differs from the guard's with probability 255/256: the count may be 3.
  expect_rejected(r, Verdict::rejected, "writes outside output out: ");
  EXPECT_NE(r.result.reason.find("changed after its end"), std::string::npos) << describe(r);
  EXPECT_NE(r.result.reason.find("(element out[4096])"), std::string::npos) << describe(r);
  EXPECT_NE(r.result.reason.find("trial 1 of"), std::string::npos) << describe(r);
}
TEST(EvalGpu, WritingBeforeTheStartIsRejected) {
  const EvalRun r = eval("row_sum", "row_sum_writes_before_start.cu");
  expect_rejected(r, Verdict::rejected, "writes outside output out: ");
  EXPECT_NE(r.result.reason.find("changed before its start"), std::string::npos) << describe(r);
  EXPECT_NE(r.result.reason.find("(element out[-1])"), std::string::npos) << describe(r);
}

// Alignment (issue #27, point 6): after the main trials, every buffer is lent 4, 8 and 16 bytes
// past a 256-byte boundary, where the original accepts that.
TEST(EvalGpu, Float4AccessesAssumingAlignmentCrashWhereTheOriginalAcceptsTheOffset) {
  const EvalRun r = eval("saxpy", "saxpy_float4_assumes_alignment.cu");
  expect_rejected(r, Verdict::crashed, "every buffer 4 bytes past a 256-byte boundary");
  EXPECT_NE(r.result.reason.find("misaligned"), std::string::npos) << describe(r);
  EXPECT_NE(r.result.reason.find("which the original accepts"), std::string::npos) << describe(r);
}
TEST(EvalGpu, VectorizedSaxpyThatChecksAlignmentPassesTheAlignmentPass) {
  const EvalRun r = eval("saxpy", "saxpy_fast.cu");
  expect_accepted(r);
  EXPECT_TRUE(r.result.verification.skipped_checks.empty()) << describe(r);
}

// An original that faults on misaligned pointers: the offsets it fails are skipped and reported,
// its server is started again, and the candidate is checked at the offset it accepts and timed.
fs::path aligned_only_repo() {
  static const fs::path dir = [] {
    const fs::path d = repo().parent_path() / (repo().filename().string() + "-aligned-only");
    fs::remove_all(d / "src");
    fs::remove_all(d / "include");
    fs::create_directories(d / "src");
    fs::copy(source_dir() / "examples" / "include", d / "include", fs::copy_options::recursive);
    fs::copy_file(source_dir() / "tests" / "profiler" / "originals" / "saxpy_aligned_only.cu", d / "src" / "saxpy.cu");
    std::ofstream(d / "kernelbot.toml") << R"toml([project]
include_dirs = ["include"]

[verify]
trials = 3
timeout_s = 120

[bench]
min_time_s = 0.1
min_samples = 20
max_samples = 400
timeout_s = 5

[[kernel]]
name = "saxpy"
source = "src/saxpy.cu"
launcher = "launch_saxpy"
sizes = [{ n = 1048576 }, { n = 1000003 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "a"
  role = "scalar"
  dtype = "float32"
  value = 2.5
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)toml";
    return d;
  }();
  return dir;
}

TEST(EvalGpu, OffsetsTheOriginalFaultsOnAreSkippedAndReported) {
  const EvalRun r = eval_in(aligned_only_repo(), "saxpy", "saxpy_fast.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  EXPECT_TRUE(r.result.verification.passed) << describe(r);
  const auto& skipped = r.result.verification.skipped_checks;
  ASSERT_EQ(skipped.size(), 2u) << describe(r);
  EXPECT_EQ(skipped[0].rfind("alignment offset 4 bytes", 0), 0u) << skipped[0];
  EXPECT_EQ(skipped[1].rfind("alignment offset 8 bytes", 0), 0u) << skipped[1];
  for (const auto& line : skipped) {
    EXPECT_NE(line.find("the original faults"), std::string::npos) << line;
    EXPECT_NE(line.find("misaligned"), std::string::npos) << line;
  }
  EXPECT_EQ(r.result.timings.size(), 2u) << "the restarted original is timed\n" << describe(r);
  std::printf("[ %s ] %s; skipped: %s; %s\n", to_string(r.result.verdict), r.result.reason.c_str(), skipped[0].c_str(),
              skipped[1].c_str());
}

}  // namespace
}  // namespace kb

// Issue #27, points 3 and 7 (state independence, special values): appended as a block of its own.
namespace kb {
namespace {

// A cache keyed on a hash of the input's first elements: every fresh input misses it; the calls on
// the same buffers with a few later elements changed hit it and replay the old values there.
TEST(EvalGpu, ACacheKeyedOnTheFirstInputElementsFailsStateIndependence) {
  const EvalRun r = eval("transpose", "transpose_caches_by_prefix.cu");
  expect_rejected(r, Verdict::wrong_result, "state independence: call 2 of 3 on the same buffers at size ");
  EXPECT_NE(r.result.reason.find("elements of input in changed (at "), std::string::npos) << describe(r);
  EXPECT_NE(r.result.reason.find("every output holding the previous call's correct result: output out"),
            std::string::npos)
      << describe(r);
}

// Skipping the work when the output already holds the right values for the first rows.
TEST(EvalGpu, SkippingWhenTheOutputLooksCurrentFailsStateIndependence) {
  const EvalRun r = eval("row_sum", "row_sum_skips_when_current.cu");
  expect_rejected(r, Verdict::wrong_result, "state independence: call ");
  EXPECT_NE(r.result.reason.find("output out"), std::string::npos) << describe(r);
}

// NaN and Inf inputs read as 0 where the original propagates them.
TEST(EvalGpu, SanitizingNonFiniteInputsFailsTheSpecialValues) {
  const EvalRun r = eval("saxpy", "saxpy_zeroes_non_finite.cu");
  expect_rejected(r, Verdict::wrong_result, "special values: at size ");
  EXPECT_NE(r.result.reason.find("output y"), std::string::npos) << describe(r);
  EXPECT_TRUE(r.result.reason.find("(expected NaN") != std::string::npos ||
              r.result.reason.find("(expected Inf") != std::string::npos ||
              r.result.reason.find("(expected -Inf") != std::string::npos)
      << describe(r);
}

// Honest candidates pass both checks, and the originals' outputs on special values are defined
// (nothing skipped): an elementwise kernel, a row reduction (the original's atomics reorder it
// on every run), a row-wise normalization.
TEST(EvalGpu, HonestCandidatesPassStateIndependenceAndSpecialValues) {
  for (const auto& [kernel, candidate] : std::vector<std::pair<std::string, std::string>>{
           {"saxpy", "saxpy_fast.cu"}, {"row_sum", "row_sum_warp.cu"}, {"layernorm", "layernorm_warp.cu"}}) {
    SCOPED_TRACE(kernel + " " + candidate);
    const EvalRun r = eval(kernel, candidate);
    expect_accepted(r);
    EXPECT_TRUE(r.result.verification.skipped_checks.empty()) << r.result.verification.skipped_checks.front() << "\n"
                                                              << describe(r);
  }
}

}  // namespace
}  // namespace kb

// The production example's row softmax (examples/production), whose rows of -Inf (masked) and
// rows holding a NaN or an Inf give NaN rows: the typical case of special values.
namespace kb {
namespace {

fs::path production_repo() {
  static const fs::path dir =
      [] {
        const fs::path d = repo().parent_path() / (repo().filename().string() + "-production");
        fs::create_directories(d);
        for (const char* sub : {"src", "include"}) {
          fs::remove_all(d / sub);
          fs::copy(source_dir() / "examples" / "production" / sub, d / sub, fs::copy_options::recursive);
        }
        std::ifstream in(source_dir() / "examples" / "production" / "kernelbot.toml");
        std::stringstream original;
        original << in.rdbuf();
        const std::string toml = kb::testing::without_table(
            kb::testing::without_table(kb::testing::without_table(original.str(), "bench"), "verify"), "search");
        std::ofstream(d / "kernelbot.toml")
            << toml << "\n[verify]\ntrials = 3\ntimeout_s = 120\n"
            << "\n[bench]\nmin_time_s = 0.1\nmin_samples = 20\nmax_samples = 400\ntimeout_s = 5\n";
        return d;
      }();
  return dir;
}

TEST(EvalGpu, AnHonestSoftmaxKeepsTheOriginalsNanRows) {
  const EvalRun r = eval_in(production_repo(), "softmax", "softmax_block256.cu");
  expect_accepted(r);
  // The special values are held against it (the original's NaN rows are defined, so none is
  // skipped). The only skip: the original's cudaCheck(cudaGetLastError()) exits on an error the
  // caller left pending, so the ledger cannot hold a candidate to keeping one.
  for (const auto& s : r.result.verification.skipped_checks) {
    EXPECT_EQ(s.find("special values"), std::string::npos) << s << "\n" << describe(r);
    EXPECT_NE(s.find("citizen's ledger: an error the caller left pending before a call: the original does not keep it"),
              std::string::npos)
        << s;
  }
}

TEST(EvalGpu, ASoftmaxThatZeroesUndefinedRowsFailsTheSpecialValues) {
  const EvalRun r = eval_in(production_repo(), "softmax", "softmax_zeroes_undefined_rows.cu");
  expect_rejected(r, Verdict::wrong_result, "special values: at size ");
  EXPECT_NE(r.result.reason.find("(expected NaN, got 0)"), std::string::npos) << describe(r);
}

}  // namespace
}  // namespace kb

// Issue #27 point 5, the stream contract real callers have: the stream argument is a non-blocking
// stream (ordered with nothing, not even the legacy default stream), and a second pass gives the
// launcher the per-thread default stream. Candidates that rely on the legacy default stream being
// ordered with their stream are rejected, naming that stream; honest ones on their stream stay
// accepted.
namespace kb {
namespace {

const char* kScaleBf16Config = R"toml(
[[kernel]]
name = "scale_bf16"
source = "src/scale_bf16.cu"
launcher = "launch_scale_bf16"
sizes = [{ n = 4194304 }, { n = 1000003 }, { n = 16777216 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "bfloat16"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "bfloat16"
  count = "n"
  [[kernel.arg]]
  name = "a"
  role = "scalar"
  dtype = "float32"
  value = 1.75
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
  [[kernel.arg]]
  name = "stream"
  role = "stream"
)toml";

// stream_repo() with the bf16 original and its [[kernel]] besides.
fs::path bf16_stream_repo() {
  static const fs::path dir = originals_repo("-streams-bf16", {"saxpy_stream.cu", "gather.cu", "scale_bf16.cu"},
                                             std::string(kStreamConfig) + kScaleBf16Config);
  return dir;
}

// Rejected by the call's gate: work the launcher queued on the legacy default stream started while
// the caller's (non-blocking) stream still held the work queued before the call.
void expect_rejected_for_the_legacy_default_stream(const EvalRun& r) {
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::rejected) << describe(r);
  const std::string& why = r.result.reason;
  EXPECT_NE(why.find("does work on a stream the caller does not wait for"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("on the legacy default stream"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("not the stream argument 'stream'"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("started"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("a non-blocking stream"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("trial 1 of 3"), std::string::npos) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), why.c_str());
}

TEST(EvalGpu, AKernelOnTheLegacyDefaultStreamBesideTheStreamArgumentIsRejected) {
  expect_rejected_for_the_legacy_default_stream(
      eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_default_stream_kernel.cu"));
}

TEST(EvalGpu, AMemsetOnTheLegacyDefaultStreamBesideTheStreamArgumentIsRejected) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream_small", "saxpy_stream_default_stream_memset.cu");
  expect_rejected_for_the_legacy_default_stream(r);
  EXPECT_NE(r.result.reason.find("emset"), std::string::npos) << describe(r);  // CUPTI names the memset
}

// Honest kernels on their stream stay accepted under the non-blocking stream and the per-thread
// pass, and are timed as before: no escaped work in the notes, nothing skipped (the original
// takes the per-thread default stream).
void expect_honest_on_its_stream(const EvalRun& r) {
  expect_accepted(r);
  EXPECT_TRUE(r.result.verification.skipped_checks.empty()) << describe(r);
  for (const auto& t : r.result.timings)
    EXPECT_EQ(t.candidate.notes.find("work escaped the timed region"), std::string::npos)
        << t.size_label << ": " << t.candidate.notes;
}

TEST(EvalGpu, ACooperativeGroupsKernelOnItsStreamIsAccepted) {
  expect_honest_on_its_stream(eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_cooperative_groups.cu"));
}

TEST(EvalGpu, ABf16KernelOnItsStreamIsAccepted) {
  expect_honest_on_its_stream(eval_in(bf16_stream_repo(), "scale_bf16", "scale_bf16_stream_vec.cu"));
}

TEST(EvalGpu, AnHonestCandidateIsAcceptedUnderTheNonBlockingStreamAndThePerThreadPass) {
  expect_honest_on_its_stream(eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_fast.cu"));
}

// A launcher that swaps the per-thread default stream for a stream of its own ("never run on a
// default stream") ignores its caller exactly when given that stream: only the per-thread pass
// gives it, and its gate and marker name it.
TEST(EvalGpu, IgnoringThePerThreadDefaultStreamIsRejectedByThePerThreadPass) {
  const EvalRun r = eval_in(stream_repo(), "saxpy_stream", "saxpy_stream_avoids_default_streams.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::rejected) << describe(r);
  const std::string& why = r.result.reason;
  EXPECT_NE(why.find("given the per-thread default stream instead of a stream of the caller's"), std::string::npos)
      << describe(r);
  EXPECT_NE(why.find("does work on a stream the caller does not wait for"), std::string::npos) << describe(r);
  EXPECT_NE(why.find("not the stream argument 'stream' (the per-thread default stream)"), std::string::npos)
      << describe(r);
  EXPECT_NE(why.find("size n=1000003"), std::string::npos) << describe(r);  // the smallest size set
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), why.c_str());
}

// Generalization sizes (issue #27, point 2): a full verification also runs once at sizes nobody
// configured, drawn per job (the smallest allowed, odd, prime, beyond the largest configured), so
// a candidate tuned to the configured sizes is rejected with the size named.
int64_t generalization_n(const std::string& reason) {
  const std::string key = "generalization size n=";
  const size_t at = reason.find(key);
  return at == std::string::npos ? -1 : std::stoll(reason.substr(at + key.size()));
}

TEST(EvalGpu, AGridFixedForTheLargestConfiguredSizeIsRejectedAtALargerOne) {
  const EvalRun r = eval("saxpy", "saxpy_grid_for_largest_size.cu");
  expect_rejected(r, Verdict::wrong_result, "(not one of the configured sizes");
  EXPECT_GT(generalization_n(r.result.reason), 16777216) << describe(r);
  EXPECT_LE(generalization_n(r.result.reason), 2 * 16777216) << describe(r);
}

TEST(EvalGpu, AFastPathForTheConfiguredSizesOnlyIsRejectedAtAnother) {
  const EvalRun r = eval("saxpy", "saxpy_fast_path_for_configured_sizes.cu");
  expect_rejected(r, Verdict::wrong_result, "(not one of the configured sizes");
  const int64_t n = generalization_n(r.result.reason);
  EXPECT_GT(n, 0) << describe(r);
  EXPECT_NE(n % 256, 0) << "only a tail exposes it\n" << describe(r);
}

TEST(EvalGpu, AGridStrideVectorizedSaxpyWithAScalarTailPassesEveryGeneralizationSize) {
  const EvalRun r = eval("saxpy", "saxpy_vec4_grid_stride.cu");
  expect_accepted(r);
  const VerificationReport& v = r.result.verification;
  EXPECT_EQ(v.sizes.size(), 3u) << "the configured sizes only";
  EXPECT_TRUE(v.skipped_checks.empty()) << describe(r);
  ASSERT_GE(v.generalization_sizes.size(), 3u) << describe(r);
  EXPECT_EQ(v.generalization_sizes.front(), "n=1") << "the smallest allowed n";
  for (const auto& t : r.result.timings) EXPECT_NE(t.size_label.find("n="), std::string::npos);
  for (const auto& label : v.generalization_sizes)
    for (const auto& t : r.result.timings) EXPECT_NE(t.size_label, label) << "generalization sizes are never timed";
}

// An original with unstated shape limits (tests/profiler/originals/saxpy_supports_some_sizes.cu:
// a refused launch below n = 16, a trap above n = 1048576); the same kernel again with those
// limits stated as size_rules.
const char* kSomeSizesConfig = R"toml([project]
include_dirs = ["include"]

[verify]
trials = 2
timeout_s = 120

[bench]
min_time_s = 0.1
min_samples = 20
max_samples = 400
timeout_s = 5

[[kernel]]
name = "saxpy_some"
source = "src/saxpy_some.cu"
launcher = "launch_saxpy"
sizes = [{ n = 1048576 }, { n = 1000003 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "a"
  role = "scalar"
  dtype = "float32"
  value = 2.5
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"

[[kernel]]
name = "saxpy_some_ruled"
source = "src/saxpy_some.cu"
launcher = "launch_saxpy"
sizes = [{ n = 1048576 }, { n = 1000003 }]
size_rules = { n = { min = 16, max = 1048576 } }
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "a"
  role = "scalar"
  dtype = "float32"
  value = 2.5
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)toml";

fs::path some_sizes_repo() {
  static const fs::path dir = [] {
    const fs::path d = repo().parent_path() / (repo().filename().string() + "-some-sizes");
    fs::remove_all(d / "src");
    fs::remove_all(d / "include");
    fs::create_directories(d / "src");
    fs::copy(source_dir() / "examples" / "include", d / "include", fs::copy_options::recursive);
    fs::copy_file(source_dir() / "tests" / "profiler" / "originals" / "saxpy_supports_some_sizes.cu",
                  d / "src" / "saxpy_some.cu");
    std::ofstream(d / "kernelbot.toml") << kSomeSizesConfig;
    return d;
  }();
  return dir;
}

TEST(EvalGpu, SizesTheOriginalFailsOnAreSkippedNotHeldAgainstTheCandidate) {
  const EvalRun r = eval_in(some_sizes_repo(), "saxpy_some", "saxpy_fast.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  const VerificationReport& v = r.result.verification;
  EXPECT_TRUE(v.passed) << describe(r);
  bool refused = false, ended = false;
  for (const auto& line : v.skipped_checks) {
    std::printf("skipped: %s\n", line.c_str());
    EXPECT_NE(line.find("(not one of the configured sizes)"), std::string::npos) << line;
    refused = refused || (line.find("generalization size n=1 ") != std::string::npos &&
                          line.find("the original fails there") != std::string::npos);
    ended = ended || line.find("the original's process ended there") != std::string::npos;
  }
  EXPECT_TRUE(refused) << "n = 1: the original's launch is refused\n" << describe(r);
  EXPECT_TRUE(ended) << "beyond n = 1048576: the original traps\n" << describe(r);
  EXPECT_FALSE(v.generalization_sizes.empty()) << "the sizes it supports are still checked";
  EXPECT_EQ(r.result.timings.size(), 2u) << "timing goes on with a fresh original\n" << describe(r);
}

TEST(EvalGpu, SizeRulesKeepGeneralizationSizesInsideWhatTheCodeSupports) {
  const EvalRun r = eval_in(some_sizes_repo(), "saxpy_some_ruled", "saxpy_fast.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::accepted || r.result.verdict == Verdict::not_faster) << describe(r);
  const VerificationReport& v = r.result.verification;
  EXPECT_TRUE(v.skipped_checks.empty()) << describe(r);
  ASSERT_FALSE(v.generalization_sizes.empty()) << describe(r);
  for (const auto& label : v.generalization_sizes) {
    const int64_t n = std::stoll(label.substr(2));
    EXPECT_GE(n, 16) << label;
    EXPECT_LE(n, 1048576) << label;
  }
  EXPECT_EQ(v.generalization_sizes.front(), "n=16") << "the smallest the rule allows";
}
}  // namespace
}  // namespace kb

// The workspace role: a buffer the original writes that is no result (its scratch). It is lent
// and poisoned but never compared, so a candidate that skips it is accepted; one that puts its
// result there instead of the output leaves the output's poison and is rejected.
namespace kb {
namespace {

const char* kScratchConfig = R"toml(
[[kernel]]
name = "scale_scratch"
source = "src/scale_scratch.cu"
launcher = "launch_scale_scratch"
sizes = [{ n = 1048576 }, { n = 16777216 }, { n = 1000003 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "tmp"
  role = "workspace"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "a"
  role = "scalar"
  dtype = "float32"
  value = 2.5
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
  [[kernel.arg]]
  name = "stream"
  role = "stream"
)toml";

fs::path scratch_repo() {
  static const fs::path dir = originals_repo("-scratch", {"saxpy_stream.cu", "gather.cu", "scale_scratch.cu"},
                                             std::string(kStreamConfig) + kScratchConfig);
  return dir;
}

TEST(EvalGpu, ACandidateThatSkipsTheWorkspaceIsAccepted) {
  expect_accepted(eval_in(scratch_repo(), "scale_scratch", "scale_scratch_skips_workspace.cu"));
}

TEST(EvalGpu, AResultLeftInTheWorkspaceInsteadOfTheOutputIsRejected) {
  expect_rejected(eval_in(scratch_repo(), "scale_scratch", "scale_scratch_result_in_workspace.cu"),
                  Verdict::wrong_result, "output y was not fully written");
}

// --sanitize: compute-sanitizer memcheck (with its leak check), racecheck, synccheck and initcheck,
// each on one call at the smallest and one at the largest configured size set.
EvalRun eval_sanitized(const std::string& kernel, const std::string& candidate) {
  return eval_in(repo(), kernel, candidate, "kernelbot.toml", {}, {"--sanitize"});
}

const std::vector<std::string> kSanitizerTools = {"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"};
// examples/kernelbot.toml's smallest and largest size sets (by bytes moved).
const std::vector<std::string> kSaxpySanitizerSizes = {"n=1000003", "n=16777216"};
const std::vector<std::string> kRowSumSanitizerSizes = {"cols=3001,rows=1000", "cols=256,rows=32768"};

std::string sanitizer_warnings(const EvalRun& r) {
  std::string out;
  for (const auto& w : r.result.verification.warnings)
    if (w.find("compute-sanitizer") != std::string::npos) out += w + "\n";
  return out;
}

TEST(EvalGpu, SanitizeRunsFourToolsAtTheSmallestAndTheLargestSizeAndFindsNothingInAnHonestCandidate) {
  const EvalRun r = eval_sanitized("saxpy", "saxpy_fast.cu");
  expect_accepted(r);
  const auto& v = r.result.verification;
  EXPECT_TRUE(v.sanitized) << describe(r);
  EXPECT_EQ(v.sanitizer_tools, kSanitizerTools) << describe(r);
  EXPECT_EQ(v.sanitizer_sizes, kSaxpySanitizerSizes) << describe(r);
  EXPECT_EQ(v.sanitizer_report, "") << describe(r);
  EXPECT_EQ(sanitizer_warnings(r), "");
  EXPECT_TRUE(v.skipped_checks.empty()) << "the original's runs under the tools are clean too";
}

TEST(EvalGpu, SanitizeNotesAWorkspaceAllocatedOnceAndClearedEachCallWithoutRejectingIt) {
  // The honest control of the scratch candidates: memory kept for the process's life, cleared
  // before each use. memcheck's leak check reports it at the end; a second call adds nothing.
  const EvalRun r = eval_sanitized("row_sum", "row_sum_keeps_cleared_scratch.cu");
  expect_accepted(r);
  const auto& v = r.result.verification;
  EXPECT_EQ(v.sanitizer_tools, kSanitizerTools) << describe(r);
  EXPECT_EQ(v.sanitizer_sizes, kRowSumSanitizerSizes) << describe(r);
  EXPECT_NE(sanitizer_warnings(r).find("keeps 1 allocation (262,144 bytes) of device memory that it never frees"),
            std::string::npos)
      << sanitizer_warnings(r) << describe(r);
  EXPECT_NE(v.sanitizer_report.find("Leaked 262,144 bytes"), std::string::npos) << v.sanitizer_report;
  EXPECT_EQ(v.sanitizer_report.find("Uninitialized"), std::string::npos) << v.sanitizer_report;
}

// A leak on every call is the citizen's ledger's before it is the sanitizer's: the ledger counts the
// allocations every evaluation's calls leave behind, so it is rejected before compute-sanitizer
// runs (seen on an H200, 2026-11-29: "citizen's ledger: 20 allocations (240000 bytes) made and never
// freed over 20 calls (the original: 0)"). The sanitizer's leak check stays for what no API call
// shows the ledger (an in-kernel malloc).
TEST(EvalGpu, ALeakOnEveryCallIsRejectedByTheLedgerBeforeTheSanitizerRuns) {
  const EvalRun r = eval_sanitized("row_sum", "row_sum_leaks_partials.cu");
  expect_rejected(r, Verdict::rejected, "citizen's ledger: 20 allocations");
  EXPECT_NE(r.result.reason.find("made and never freed over 20 calls (the original: 0)"), std::string::npos)
      << r.result.reason;
}

TEST(EvalGpu, SanitizeRejectsAScratchBufferAssumedToStartAtZeroWithInitcheck) {
  const EvalRun r = eval_sanitized("row_sum", "row_sum_assumes_zeroed_scratch.cu");
  expect_rejected(r, Verdict::rejected, "compute-sanitizer initcheck found");
  EXPECT_TRUE(r.result.verification.passed) << "a fresh cudaMalloc reads as zero: the normal judge passes it";
  const auto& v = r.result.verification;
  EXPECT_EQ(v.sanitizer_tools, kSanitizerTools) << "memcheck, racecheck and synccheck let it through";
  EXPECT_NE(r.result.reason.find("reads of device memory that nothing had written"), std::string::npos)
      << r.result.reason;
  EXPECT_NE(v.sanitizer_report.find("Uninitialized __global__ memory read"), std::string::npos) << v.sanitizer_report;
  // Its accumulator, allocated once and kept: memcheck's leak check notes it, does not reject it.
  EXPECT_NE(sanitizer_warnings(r).find("keeps 1 allocation"), std::string::npos) << sanitizer_warnings(r);
}

TEST(EvalGpu, SanitizeSeesAnOverReadThatOnlyTheLargestSizeTakes) {
  // From 4M elements on, a staged kernel whose last block loads 4 KiB past x and y at n = 16777216.
  const EvalRun r = eval_sanitized("saxpy", "saxpy_staged_reads_past_end_at_large_n.cu");
  expect_rejected(r, Verdict::rejected, "compute-sanitizer memcheck found");
  EXPECT_TRUE(r.result.verification.passed) << "the guard zones take the over-read; no output is wrong";
  EXPECT_NE(r.result.reason.find("n=16777216"), std::string::npos) << r.result.reason;
  EXPECT_NE(r.result.verification.sanitizer_report.find("Invalid __global__ read of size 16 bytes"), std::string::npos)
      << r.result.verification.sanitizer_report;
  EXPECT_EQ(r.result.verification.sanitizer_sizes, kSaxpySanitizerSizes);
}

}  // namespace
}  // namespace kb
