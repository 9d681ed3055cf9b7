// compute-sanitizer's side of a verdict on a CPU: reading the tools' output (the texts below are
// compute-sanitizer 2025.3.1's own, from an H200: memcheck's leak check, initcheck, a padded
// out-of-bounds read), the tools and their options, the sanitized job's size sets, and which
// findings count against the candidate (run_sanitizer_pass with a runner that returns text).
#include "profiler/evaluate/verdict/sanitizer_pass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

namespace kb::profiler {
namespace {

// memcheck --leak-check full over a library that leaks 4 KiB on every call and keeps one 8 KiB
// workspace, called three times, its context destroyed (cudaDeviceReset) before the end.
const char* kLeakReport = R"(========= COMPUTE-SANITIZER
========= Leaked 4,096 bytes at 0x7fbdea800000
=========     Saved host backtrace up to driver entry point at allocation time
=========         Host Frame: cudaMalloc [0x4c986] in libexp.so
=========         Host Frame: lib_leak_per_call [0x8d8c] in libexp.so
=========         Host Frame: main [0x8efa] in exp
========= 
========= Leaked 8,192 bytes at 0x7fbdea801000
=========     Saved host backtrace up to driver entry point at allocation time
=========         Host Frame: cudaMalloc [0x4c986] in libexp.so
=========         Host Frame: lib_static_once [0x8e70] in libexp.so
=========         Host Frame: main [0x8f00] in exp
========= 
========= Leaked 4,096 bytes at 0x7fbdea803000
=========     Saved host backtrace up to driver entry point at allocation time
=========         Host Frame: cudaMalloc [0x4c986] in libexp.so
=========         Host Frame: lib_leak_per_call [0x8d8c] in libexp.so
=========         Host Frame: main [0x8efa] in exp
========= 
========= Leaked 4,096 bytes at 0x7fbdea804000
=========     Saved host backtrace up to driver entry point at allocation time
=========         Host Frame: cudaMalloc [0x4c986] in libexp.so
=========         Host Frame: lib_leak_per_call [0x8d8c] in libexp.so
=========         Host Frame: main [0x8efa] in exp
========= 
========= LEAK SUMMARY: 20480 bytes leaked in 4 allocations
========= ERROR SUMMARY: 4 errors
)";

// initcheck over a kernel that atomicAdds into a cudaMalloc'ed accumulator nobody cleared.
const char* kInitcheckReport = R"(========= COMPUTE-SANITIZER
========= Uninitialized __global__ memory read of size 4 bytes
=========     at acc(float *, const float *, int)+0xd0
=========     by thread (96,0,0) in block (0,0,0)
=========     Address 0x7f4536800000
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x91fb] in exp
========= 
========= Uninitialized __global__ memory read of size 4 bytes
=========     at acc(float *, const float *, int)+0xd0
=========     by thread (97,0,0) in block (0,0,0)
=========     Address 0x7f4536800000
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x91fb] in exp
========= 
========= ERROR SUMMARY: 1024 errors
========= ERROR SUMMARY: 1004 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

// memcheck --padding 4096: one float past a 2 MiB buffer, which without the padding lands in the
// next buffer and goes unreported.
const char* kPaddedReadReport = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at oob(const float *, float *, int)+0x80
=========     by thread (0,0,0) in block (0,0,0)
=========     Access to 0x7fc2b8a00000 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7fc2b8800000 of size 2,097,152 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x91e2] in exp
========= 
========= LEAK SUMMARY: 0 bytes leaked in 0 allocations
========= ERROR SUMMARY: 36 errors
========= ERROR SUMMARY: 16 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

SandboxResult tool_output(const std::string& out, int exit_code) {
  SandboxResult r;
  r.started = true;
  r.exit_code = exit_code;
  r.out = out;
  r.err = "kb-harness [info] pending: ran under compute-sanitizer\n";
  return r;
}

TEST(SanitizerOutput, CountsErrorsAndKeepsTheReport) {
  SandboxResult memcheck;
  memcheck.started = true;
  memcheck.exit_code = 86;
  memcheck.out = "========= COMPUTE-SANITIZER\n"
                 "========= Invalid __global__ write of size 4 bytes\n"
                 "=========     at saxpy_kernel(const float *, float *, float, int)+0x90 in variant.cu:9\n"
                 "=========     by thread (31,0,0) in block (4095,0,0)\n"
                 "=========     Address 0x7f0000400000 is out of bounds\n"
                 "kb-harness [info] done\n"
                 "========= ERROR SUMMARY: 1 error\n";
  SanitizerFindings f = read_sanitizer_output("memcheck", memcheck, 86);
  EXPECT_TRUE(f.ran);
  EXPECT_FALSE(f.clean);
  EXPECT_EQ(f.errors, 1);
  EXPECT_EQ(f.leaked_allocations, 0);
  EXPECT_EQ(f.other_errors(), 1);
  EXPECT_NE(f.report.find("Invalid __global__ write"), std::string::npos);
  EXPECT_EQ(f.report.find("kb-harness"), std::string::npos) << "only the tool's lines";

  SandboxResult race;
  race.started = true;
  race.exit_code = 86;
  race.err = "========= Error: Race reported between Write access at k+0x10\n"
             "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)\n";
  EXPECT_EQ(read_sanitizer_output("racecheck", race, 86).errors, 2);

  SandboxResult clean;
  clean.started = true;
  clean.exit_code = 0;
  clean.out = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";
  SanitizerFindings c = read_sanitizer_output("memcheck", clean, 86);
  EXPECT_TRUE(c.clean);
  EXPECT_EQ(c.errors, 0);

  SandboxResult hung;
  hung.started = true;
  hung.timed_out = true;
  EXPECT_FALSE(read_sanitizer_output("memcheck", hung, 86).ran);
}

TEST(SanitizerOutput, LeaksCountAsErrorsWithTheirBytesAllocationsAndSites) {
  const SanitizerFindings f = read_sanitizer_output("memcheck", tool_output(kLeakReport, 86), 86);
  EXPECT_TRUE(f.ran);
  EXPECT_FALSE(f.clean);
  EXPECT_EQ(f.errors, 4) << "memcheck counts each leaked allocation as an error";
  EXPECT_EQ(f.leaked_allocations, 4);
  EXPECT_EQ(f.leaked_bytes, 20480);
  EXPECT_EQ(f.other_errors(), 0) << "leaks only";
  EXPECT_NE(f.report.find("Leaked 8,192 bytes at 0x7fbdea801000"), std::string::npos) << f.report;
  EXPECT_NE(f.report.find("Host Frame: lib_leak_per_call"), std::string::npos) << "where it was allocated";
  EXPECT_NE(f.report.find("LEAK SUMMARY: 20480 bytes leaked in 4 allocations"), std::string::npos);
}

TEST(SanitizerOutput, LeakedLinesCountWhenTheSummaryIsMissing) {
  // A report cut before its summaries: the "Leaked" lines still say what leaked (their sizes
  // written with thousands separators).
  std::string text = kLeakReport;
  text = text.substr(0, text.find("========= LEAK SUMMARY"));
  const SanitizerFindings f = read_sanitizer_output("memcheck", tool_output(text, 86), 86);
  EXPECT_EQ(f.leaked_allocations, 4);
  EXPECT_EQ(f.leaked_bytes, 4096 + 8192 + 4096 + 4096);
  EXPECT_EQ(f.errors, 4) << "no ERROR SUMMARY: at least one error per leaked allocation";
  EXPECT_TRUE(f.ran) << "the exit code says the tool found errors";
}

TEST(SanitizerOutput, NoLeakIsClean) {
  const SanitizerFindings f = read_sanitizer_output(
      "memcheck",
      tool_output("========= COMPUTE-SANITIZER\n========= LEAK SUMMARY: 0 bytes leaked in 0 allocations\n"
                  "========= ERROR SUMMARY: 0 errors\n",
                  0),
      86);
  EXPECT_TRUE(f.clean);
  EXPECT_EQ(f.leaked_allocations, 0);
  EXPECT_EQ(f.leaked_bytes, 0);
}

TEST(SanitizerOutput, InitcheckCountsEveryUninitializedRead) {
  const SanitizerFindings f = read_sanitizer_output("initcheck", tool_output(kInitcheckReport, 86), 86);
  EXPECT_TRUE(f.ran);
  EXPECT_EQ(f.errors, 1024) << "the summary's count, not the line saying how many were not printed";
  EXPECT_EQ(f.other_errors(), 1024);
  EXPECT_NE(f.report.find("Uninitialized __global__ memory read of size 4 bytes"), std::string::npos);
}

TEST(SanitizerOutput, APaddedOutOfBoundsReadIsAnErrorAndNoLeak) {
  const SanitizerFindings f = read_sanitizer_output("memcheck", tool_output(kPaddedReadReport, 86), 86);
  EXPECT_EQ(f.errors, 36);
  EXPECT_EQ(f.leaked_allocations, 0);
  EXPECT_EQ(f.other_errors(), 36);
  EXPECT_NE(f.report.find("1 bytes after the nearest allocation"), std::string::npos);
}

TEST(SanitizerOutput, TheSummariesAndLeaksAfterALongReportAreKept) {
  std::string text = "========= COMPUTE-SANITIZER\n";
  for (int i = 0; i < 100; ++i) text += "=========     at k()+0x" + std::to_string(i) + "\n";
  text += "========= Leaked 65,536 bytes at 0x7f0000000000\n"
          "========= LEAK SUMMARY: 65536 bytes leaked in 1 allocations\n"
          "========= ERROR SUMMARY: 101 errors\n";
  const SanitizerFindings f = read_sanitizer_output("memcheck", tool_output(text, 86), 86);
  EXPECT_EQ(f.report.find("k()+0x99"), std::string::npos) << "the report is bounded";
  EXPECT_NE(f.report.find("Leaked 65,536 bytes"), std::string::npos);
  EXPECT_NE(f.report.find("LEAK SUMMARY: 65536 bytes leaked in 1 allocations"), std::string::npos);
  EXPECT_NE(f.report.find("ERROR SUMMARY: 101 errors"), std::string::npos);
  EXPECT_EQ(f.leaked_allocations, 1);
  EXPECT_EQ(f.other_errors(), 100);
}

TEST(SanitizerTools, FourToolsInOrderMemcheckWithLeakCheckAndPadding) {
  const auto& tools = sanitizer_tools();
  ASSERT_EQ(tools.size(), 4u);
  EXPECT_EQ(tools[0].name, "memcheck");
  EXPECT_EQ(tools[1].name, "racecheck");
  EXPECT_EQ(tools[2].name, "synccheck");
  EXPECT_EQ(tools[3].name, "initcheck");
  EXPECT_TRUE(tools[0].leak_check);
  EXPECT_EQ(tools[0].label, "memcheck (with leak check)");
  const std::vector<std::string> memcheck = sanitizer_command("/cuda/bin/compute-sanitizer", tools[0]);
  EXPECT_EQ(memcheck, (std::vector<std::string>{"/cuda/bin/compute-sanitizer", "--tool", "memcheck",
                                                "--target-processes-filter", "exe", "--error-exitcode", "86",
                                                "--print-limit", "20", "--leak-check", "full", "--padding", "65536"}));
  const std::vector<std::string> initcheck = sanitizer_command("/cuda/bin/compute-sanitizer", tools[3]);
  EXPECT_EQ(initcheck,
            (std::vector<std::string>{"/cuda/bin/compute-sanitizer", "--tool", "initcheck", "--target-processes-filter",
                                      "exe", "--error-exitcode", "86", "--print-limit", "20"}))
      << "memcheck's options are memcheck's only";
}

TEST(SanitizerTools, TheJobIsOneCallAtTheSmallestAndOneAtTheLargestSizeSet) {
  HarnessJob full;
  full.size_labels = {"n=1048576", "n=16777216", "n=1000003"};
  full.bytes = {8388608, 134217728, 8000024};
  full.flops = {1, 2, 3};
  HarnessArg x;
  x.counts = {1048576, 16777216, 1000003};
  full.args = {x};
  full.trials = 5;
  full.distributions = {"normal", "uniform"};
  const HarnessJob job = sanitizer_job(full);
  EXPECT_EQ(job.size_labels, (std::vector<std::string>{"n=1000003", "n=16777216"}));
  EXPECT_EQ(job.args[0].counts, (std::vector<int64_t>{1000003, 16777216}));
  EXPECT_EQ(job.trials, 1);
  EXPECT_TRUE(job.under_sanitizer);
  EXPECT_EQ(job.distributions, (std::vector<std::string>{"normal"}));

  // One configured size set: one call.
  HarnessJob single = full;
  single.size_labels = {"n=1000"};
  single.bytes = {8000};
  single.flops = {1};
  single.args[0].counts = {1000};
  EXPECT_EQ(sanitizer_job(single).size_labels, (std::vector<std::string>{"n=1000"}));
}

// A runner that answers from a table: (tool, whose, calls) -> the tool's output and exit code;
// anything not in the table is a clean run. It records every run it was asked for.
struct FakeRunner {
  struct Answer {
    std::string out;
    int exit_code = 0;
    bool timed_out = false;
    Verdict verdict = Verdict::pending;  // how the judge's run under the tool was classified
    std::string reason;
  };
  static Answer answer(const std::string& out, int exit_code, bool timed_out = false,
                       Verdict verdict = Verdict::pending, const std::string& reason = "") {
    Answer a;
    a.out = out;
    a.exit_code = exit_code;
    a.timed_out = timed_out;
    a.verdict = verdict;
    a.reason = reason;
    return a;
  }
  std::map<std::string, Answer> answers;  // "memcheck candidate 1"
  std::vector<std::string> asked;
  std::mutex asking;  // the pass may run several tools at once

  static std::string key(const std::string& tool, bool original, int64_t calls) {
    return tool + (original ? " original " : " candidate ") + std::to_string(calls);
  }
  SanitizerRunner runner() {
    return [this](const SanitizerTool& tool, bool original, int64_t calls) {
      const std::string k = key(tool.name, original, calls);
      {
        std::lock_guard lock(asking);
        asked.push_back(k);
      }
      Answer a;
      if (auto it = answers.find(k); it != answers.end()) a = it->second;
      else
        a.out = tool.name == "racecheck" ? "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
                                         : "========= ERROR SUMMARY: 0 errors\n";
      SanitizerRun r;
      SandboxResult p = tool_output(a.out, a.exit_code);
      p.timed_out = a.timed_out;
      p.wall_s = 30;
      r.findings = read_sanitizer_output(tool.name, p, kSanitizerErrorExit);
      r.timed_out = a.timed_out;
      r.wall_s = 30;
      r.verdict = a.verdict;
      r.reason = a.reason;
      r.output_tail = "kb-harness: the judge's last words\n";
      return r;
    };
  }
};

std::string leaks(int64_t allocations, int64_t bytes_each) {
  std::string out = "========= COMPUTE-SANITIZER\n";
  for (int64_t i = 0; i < allocations; ++i)
    out += "========= Leaked " + std::to_string(bytes_each) + " bytes at 0x7f00000" + std::to_string(i) +
           "000\n=========         Host Frame: launch_row_sum(float const*, float*, int, int) [0x9cd7] in "
           "libcandidate.so\n";
  out += "========= LEAK SUMMARY: " + std::to_string(allocations * bytes_each) + " bytes leaked in " +
         std::to_string(allocations) + " allocations\n========= ERROR SUMMARY: " + std::to_string(allocations) +
         " errors\n";
  return out;
}

const std::vector<std::string> kSizes = {"n=1000", "n=16777216"};

TEST(SanitizerPass, CleanToolsRunOnceEachOnTheCandidateOnly) {
  FakeRunner fake;
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::pending);
  EXPECT_EQ(o.report, "");
  EXPECT_TRUE(o.warnings.empty());
  EXPECT_TRUE(o.skipped.empty());
  EXPECT_EQ(o.tools, (std::vector<std::string>{"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"}));
  EXPECT_EQ(fake.asked, (std::vector<std::string>{"memcheck candidate 1", "racecheck candidate 1",
                                                  "synccheck candidate 1", "initcheck candidate 1"}));
}

TEST(SanitizerPass, MemoryLeakedOnEveryCallIsRejectedNamingItsSize) {
  FakeRunner fake;
  // One call at each of the two size sets leaves 2 allocations, two calls 4: 2 more per round.
  fake.answers["memcheck candidate 1"] = FakeRunner::answer(leaks(2, 4096), 86);
  fake.answers["memcheck candidate 2"] = FakeRunner::answer(leaks(4, 4096), 86);
  fake.answers["memcheck original 1"] = FakeRunner::answer("========= LEAK SUMMARY: 0 bytes leaked in 0 allocations\n"
                                                           "========= ERROR SUMMARY: 0 errors\n",
                                                           0);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::rejected);
  EXPECT_EQ(o.reason,
            "compute-sanitizer memcheck found device memory leaked on every call: a second call at each size set "
            "left 2 allocations (8,192 bytes) more never freed (after one call at each of n=1000, n=16777216: 2 "
            "allocations (8,192 bytes); after two: 4 allocations (16,384 bytes)); the original leaves none; see the "
            "sanitizer report for where it was allocated");
  EXPECT_NE(o.report.find("Host Frame: launch_row_sum"), std::string::npos) << o.report;
  EXPECT_EQ(fake.asked,
            (std::vector<std::string>{"memcheck candidate 1", "memcheck candidate 2", "memcheck original 1"}))
      << "stops at the finding; the original leaks nothing, so it needs no second run";
}

TEST(SanitizerPass, MemoryAllocatedOnceAndKeptIsAWarningNotALeak) {
  FakeRunner fake;
  fake.answers["memcheck candidate 1"] = FakeRunner::answer(leaks(1, 262144), 86);
  fake.answers["memcheck candidate 2"] = FakeRunner::answer(leaks(1, 262144), 86);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::pending) << o.reason;
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0],
            "compute-sanitizer memcheck: the candidate keeps 1 allocation (262,144 bytes) of device memory that it "
            "never frees; allocated once, not on every call (a second call at each size set left no more), so not "
            "a leak per call");
  EXPECT_NE(o.report.find("Leaked 262144 bytes"), std::string::npos) << "what the tool said is kept";
  EXPECT_EQ(o.tools.size(), 4u) << "every tool still ran";
  EXPECT_EQ(std::count(fake.asked.begin(), fake.asked.end(), "memcheck original 1"), 0)
      << "nothing held against it: the original need not run";
}

TEST(SanitizerPass, AnUninitializedReadIsRejectedByInitcheckAfterTheOtherToolsPassed) {
  FakeRunner fake;
  fake.answers["initcheck candidate 1"] = FakeRunner::answer(kInitcheckReport, 86);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::rejected);
  EXPECT_EQ(o.reason,
            "compute-sanitizer initcheck found 1024 errors (reads of device memory that nothing had written) in one "
            "call at each of n=1000, n=16777216; see the sanitizer report");
  EXPECT_NE(o.report.find("Uninitialized __global__ memory read"), std::string::npos);
  EXPECT_EQ(o.tools, (std::vector<std::string>{"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"}));
  EXPECT_EQ(fake.asked.back(), "initcheck original 1") << "the original was asked whether it reads them too";
}

TEST(SanitizerPass, ErrorsTheOriginalHasTooAreNotHeldAgainstTheCandidate) {
  FakeRunner fake;
  fake.answers["initcheck candidate 1"] = FakeRunner::answer(kInitcheckReport, 86);
  fake.answers["initcheck original 1"] =
      FakeRunner::answer("========= Uninitialized __global__ memory read of size 4 bytes\n"
                         "========= ERROR SUMMARY: 32 errors\n",
                         86);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::pending) << o.reason;
  ASSERT_EQ(o.skipped.size(), 1u);
  EXPECT_EQ(o.skipped[0],
            "compute-sanitizer initcheck (one call at each of n=1000, n=16777216): 1024 errors (reads of device "
            "memory that nothing had written); the original has 32 under the same tool");
  EXPECT_NE(o.report.find("Uninitialized"), std::string::npos) << "the candidate's report stays in the evidence";
  EXPECT_EQ(o.tools.size(), 4u);
}

TEST(SanitizerPass, AnOutOfBoundsReadIsRejectedWhenTheOriginalIsClean) {
  FakeRunner fake;
  fake.answers["memcheck candidate 1"] = FakeRunner::answer(kPaddedReadReport, 86);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::rejected);
  EXPECT_EQ(o.reason.rfind("compute-sanitizer memcheck found 36 errors (out-of-bounds or misaligned accesses", 0), 0u)
      << o.reason;
  EXPECT_EQ(fake.asked, (std::vector<std::string>{"memcheck candidate 1", "memcheck original 1"}))
      << "no leak reported: no second call";
}

TEST(SanitizerPass, ALeakPerCallTheOriginalHasAsMuchIsNotHeldAgainstTheCandidate) {
  FakeRunner fake;
  fake.answers["memcheck candidate 1"] = FakeRunner::answer(leaks(2, 4096), 86);
  fake.answers["memcheck candidate 2"] = FakeRunner::answer(leaks(4, 4096), 86);
  fake.answers["memcheck original 1"] = FakeRunner::answer(leaks(2, 4096), 86);
  fake.answers["memcheck original 2"] = FakeRunner::answer(leaks(4, 4096), 86);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::pending) << o.reason;
  ASSERT_EQ(o.skipped.size(), 1u);
  EXPECT_NE(o.skipped[0].find("the original's leave 2 allocations (8,192 bytes)"), std::string::npos) << o.skipped[0];

  // Leaking more per call than the original does is the candidate's.
  fake.answers["memcheck candidate 2"] = FakeRunner::answer(leaks(6, 4096), 86);
  const SanitizerOutcome more = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(more.verdict, Verdict::rejected);
  EXPECT_NE(more.reason.find("the original's second calls leave 2 allocations (8,192 bytes)"), std::string::npos)
      << more.reason;
}

TEST(SanitizerPass, AHangUnderAToolIsTimedOut) {
  FakeRunner fake;
  fake.answers["racecheck candidate 1"] = FakeRunner::answer("", -1, true);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::timed_out);
  EXPECT_EQ(o.reason, "hung under compute-sanitizer racecheck: killed after 30 s");
  EXPECT_EQ(o.tools, (std::vector<std::string>{"memcheck (with leak check)"}));
}

TEST(SanitizerPass, ACrashWithoutFindingsEndsThePass) {
  FakeRunner fake;
  fake.answers["synccheck candidate 1"] = FakeRunner::answer("========= ERROR SUMMARY: 0 errors\n", 3, false,
                                                             Verdict::crashed, "the candidate crashed: SIGSEGV");
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(o.verdict, Verdict::crashed);
  EXPECT_EQ(o.reason, "compute-sanitizer synccheck did not finish: the candidate crashed: SIGSEGV");
  EXPECT_NE(o.report.find("ERROR SUMMARY: 0 errors"), std::string::npos);

  // A tool that printed nothing of its own: the process's last words are the report.
  fake.answers["synccheck candidate 1"] = FakeRunner::answer("", 1, false, Verdict::infra_error, "the harness failed");
  const SanitizerOutcome silent = run_sanitizer_pass(fake.runner(), kSizes);
  EXPECT_EQ(silent.verdict, Verdict::infra_error);
  EXPECT_NE(silent.report.find("synccheck: "), std::string::npos) << silent.report;
}

TEST(SanitizerPass, AnOriginalThatDoesNotFinishUnderTheToolExcusesNothing) {
  FakeRunner fake;
  fake.answers["racecheck candidate 1"] =
      FakeRunner::answer("========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", 86);
  fake.answers["racecheck original 1"] = FakeRunner::answer("", -1, true);
  const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), {"n=1000"});
  EXPECT_EQ(o.verdict, Verdict::rejected);
  EXPECT_EQ(o.reason,
            "compute-sanitizer racecheck found 1 error (shared-memory data races) in one call at n=1000; see the "
            "sanitizer report");
}

TEST(SanitizerOutput, ACandidatesOwnSummaryOfDigitsIsReadWithoutOverflowingTheStack) {
  // The candidate prints a summary's start and 100 KB of digits: read without overflowing the
  // stack (std::regex recurses per character matched), and not taken for the tool's summary.
  SandboxResult forged;
  forged.started = true;
  forged.exit_code = 0;
  forged.out = "ERROR SUMMARY: " + std::string(100 * 1024, '7') + "\n========= ERROR SUMMARY: 0 errors\n";
  EXPECT_TRUE(read_sanitizer_output("memcheck", forged, 86).clean);
  forged.out = "LEAK SUMMARY: " + std::string(100 * 1024, '7') + " bytes leaked in 1 allocation\n" +
               "========= ERROR SUMMARY: 0 errors\n";
  EXPECT_TRUE(read_sanitizer_output("memcheck", forged, 86).ran);
}

}  // namespace
}  // namespace kb::profiler

namespace kb::profiler {
namespace {

// Wraps a runner: counts the runs under way, and holds each run until `together` are under way
// at once (or `patience` has passed), so that runs meant to overlap are seen to overlap.
struct OverlapProbe {
  std::mutex m;
  std::condition_variable changed;
  int running = 0;
  int most = 0;
  SanitizerRunner wrap(SanitizerRunner inner, int together, std::chrono::milliseconds patience) {
    return [this, inner, together, patience](const SanitizerTool& tool, bool original, int64_t calls) {
      {
        std::unique_lock lock(m);
        most = std::max(most, ++running);
        changed.notify_all();
        changed.wait_for(lock, patience, [&] { return most >= together; });
      }
      SanitizerRun r = inner(tool, original, calls);
      std::lock_guard lock(m);
      --running;
      changed.notify_all();
      return r;
    };
  }
};

TEST(SanitizerPass, ToolsAtOnceRunTogetherAndGiveTheOutcomeOfOneAtATime) {
  FakeRunner fake;
  OverlapProbe probe;
  const auto started = std::chrono::steady_clock::now();
  const SanitizerOutcome o = run_sanitizer_pass(probe.wrap(fake.runner(), 4, std::chrono::seconds(5)), kSizes,
                                                /*at_once=*/4);
  EXPECT_EQ(probe.most, 4) << "the four tools' runs did not overlap";
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4))
      << "the runs waited for each other: they ran one after another";
  EXPECT_EQ(o.verdict, Verdict::pending);
  EXPECT_EQ(o.tools, (std::vector<std::string>{"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"}));
  std::vector<std::string> asked = fake.asked;
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<std::string>{"initcheck candidate 1", "memcheck candidate 1", "racecheck candidate 1",
                                             "synccheck candidate 1"}));
}

TEST(SanitizerPass, AFindingOfAnEarlierToolDecidesWhateverTheLaterToolsFoundMeanwhile) {
  for (const int64_t at_once : {1, 4}) {
    FakeRunner fake;
    fake.answers["memcheck candidate 1"] =
        FakeRunner::answer("========= Invalid __global__ read of size 4 bytes\n========= ERROR SUMMARY: 1 error\n", 86);
    fake.answers["synccheck candidate 1"] = FakeRunner::answer("", -1, true);  // a later tool's hang
    const SanitizerOutcome o = run_sanitizer_pass(fake.runner(), kSizes, at_once);
    EXPECT_EQ(o.verdict, Verdict::rejected) << "at_once " << at_once << ": " << o.reason;
    EXPECT_NE(o.reason.find("compute-sanitizer memcheck found 1 error"), std::string::npos) << o.reason;
    EXPECT_EQ(o.tools, (std::vector<std::string>{"memcheck (with leak check)"}));
  }
}

TEST(SanitizerPass, NoMoreThanAtOnceRunsAreUnderWayCountingAToolsFurtherRuns) {
  FakeRunner fake;
  // memcheck needs three more runs (a second call, and the original's two), while later tools wait.
  fake.answers["memcheck candidate 1"] = FakeRunner::answer(leaks(2, 4096), 86);
  fake.answers["memcheck candidate 2"] = FakeRunner::answer(leaks(4, 4096), 86);
  fake.answers["memcheck original 1"] = FakeRunner::answer(leaks(2, 4096), 86);
  fake.answers["memcheck original 2"] = FakeRunner::answer(leaks(4, 4096), 86);
  OverlapProbe probe;
  const SanitizerOutcome o = run_sanitizer_pass(probe.wrap(fake.runner(), 3, std::chrono::milliseconds(100)), kSizes,
                                                /*at_once=*/2);
  EXPECT_EQ(probe.most, 2);
  EXPECT_EQ(o.verdict, Verdict::pending) << o.reason;
  EXPECT_EQ(o.tools.size(), 4u);
  EXPECT_EQ(fake.asked.size(), 7u);
}

}  // namespace
}  // namespace kb::profiler
