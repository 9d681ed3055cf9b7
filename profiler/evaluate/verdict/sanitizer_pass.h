// compute-sanitizer over a candidate that passed every other check: which tools run, with which
// options, at which size sets, how one run's output is read, and which findings count against
// the candidate. Each tool wraps a judge of its own that calls the candidate's library on the
// server's own buffers (no guard zones), one call at the smallest and one at the largest
// configured size set. A finding is held against the candidate only when the original, run
// under the same tool on the same job, does not have it too; a leak only when it grows with the
// calls (memory allocated once and kept is noted, not rejected). The decisions are pure
// functions of the runs, so every outcome is tested on a CPU with a runner that returns text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/harness_job.h"
#include "core/result_types.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {

// The exit status compute-sanitizer is asked to end with when it found errors.
inline constexpr int kSanitizerErrorExit = 86;
// The one process compute-sanitizer tracks (--target-processes-filter): the candidate's server,
// by the name it is executed as.
inline constexpr const char* kSanitizedProcessName = "exe";

// One tool as kernelbot runs it.
struct SanitizerTool {
  std::string name;                  // compute-sanitizer's --tool
  std::vector<std::string> options;  // beyond --tool, --error-exitcode and --print-limit
  std::string label;                 // how the evidence names it: "memcheck (with leak check)"
  std::string finds;                 // what its errors are, for a verdict's reason
  bool leak_check = false;           // its report ends with memcheck's LEAK SUMMARY
};

// The tools in the order they run: memcheck (with --leak-check full, and --padding so that an
// access just past a buffer lands outside every allocation instead of in the next one), racecheck,
// synccheck, initcheck.
const std::vector<SanitizerTool>& sanitizer_tools();

// compute-sanitizer's words before the judge's command line:
// `tool_path --tool NAME --target-processes-filter exe --error-exitcode 86 --print-limit 20 OPTIONS...`.
std::vector<std::string> sanitizer_command(const std::string& tool_path, const SanitizerTool& tool);

// The job every tool runs: `full` cut down to its smallest and its largest configured size set
// (one set when they are the same), one trial on the first distribution, under_sanitizer. The
// libraries are the caller's to set.
HarnessJob sanitizer_job(const HarnessJob& full);

// What compute-sanitizer said in one run of the harness.
struct SanitizerFindings {
  bool ran = false;  // the tool ran to its end (not crashed, not timed out)
  bool clean = false;
  int64_t errors = 0;  // everything the tool counted: memcheck counts each leaked allocation as one
  // memcheck's leak check: "LEAK SUMMARY: 1024 bytes leaked in 1 allocations" (or, without that
  // line, the "Leaked 1,024 bytes at 0x..." lines): what was still allocated when the CUDA context
  // was destroyed.
  int64_t leaked_bytes = 0;
  int64_t leaked_allocations = 0;
  std::string report;  // the tool's lines ("========= ..."), bounded; the summaries always kept
  // Errors other than leaks (accesses, hazards, barriers, uninitialized reads).
  int64_t other_errors() const { return errors > leaked_allocations ? errors - leaked_allocations : 0; }
};
// `error_exit_code` is what was passed as --error-exitcode.
SanitizerFindings read_sanitizer_output(const std::string& tool, const SandboxResult& run, int error_exit_code);

// One run of a tool: what it found, and how the harness's process under it ended.
struct SanitizerRun {
  SanitizerFindings findings;
  bool timed_out = false;
  double wall_s = 0;
  // The harness's run classified (classify_harness_run): crashed, infra_error... when the tool
  // did not finish; pending or a correct verdict when it did.
  Verdict verdict = Verdict::pending;
  std::string reason;
  std::string output_tail;  // the process's last words, for a run that left no report
};
SanitizerRun read_sanitizer_run(const SanitizerTool& tool, const HarnessRun& run, int64_t max_memory_mb);

// Runs `tool` over the candidate's library (`original` false) or the original's, with `calls`
// calls at each size set of the sanitizer job.
using SanitizerRunner = std::function<SanitizerRun(const SanitizerTool& tool, bool original, int64_t calls)>;

// What the tools found, as the verification's evidence.
struct SanitizerOutcome {
  Verdict verdict = Verdict::pending;  // pending: nothing held against the candidate
  std::string reason;
  // The candidate's reports of every run that found something; empty when every tool was clean.
  std::string report;
  std::vector<std::string> tools;     // the labels of the tools that ran to their end
  std::vector<std::string> warnings;  // memory the candidate keeps allocated, never freed, but not per call
  std::vector<std::string> skipped;   // findings the original has too, one line each
};

// Runs every tool of sanitizer_tools() in order through `run`, stopping at the first finding
// held against the candidate or the first run that did not finish. `sizes` are the sanitizer
// job's size labels, for the reasons. Per tool:
//  - the candidate, one call per size set; a hang is timed_out, a crash or a tool that did not
//    finish (without errors) is crashed or infra_error;
//  - when memcheck reports memory still allocated at the end: again with two calls per size set;
//    what the second round of calls added is a leak per call (memory allocated once and kept, a
//    cached workspace, adds nothing: a warning);
//  - when it found errors or a leak per call: the original, the same way; errors the original has
//    too (any count), and a leak per call no larger than the original's, are not held against the
//    candidate (`skipped`); otherwise the verdict is rejected, naming the tool, the count and what
//    the tool checks, or the leak's bytes and allocations per call.
//
// `at_once` tools run at a time (each its own process, GPU context and copy of the job's buffers):
// the first candidate run of the next tools starts while an earlier tool's runs go on, so four
// tools cost about the longest one instead of their sum. Their results are still read in the
// tools' order, so the outcome is the one a run of one tool at a time gives; a tool started
// before an earlier one ended the pass only costs its time. `run` must then be safe to call from
// several threads at once.
SanitizerOutcome run_sanitizer_pass(const SanitizerRunner& run, const std::vector<std::string>& sizes,
                                    int64_t at_once = 1);

}  // namespace kb::profiler
