// Turning what a `kernelbot-harness` child did into a verdict, and the rules applied on top of
// the harness's own judgement: the accept rule, a job cut down to some size sets. Pure functions of the
// child's result, so every outcome (crash, hang, memory, a missing result file) is tested on a CPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/harness_job.h"
#include "core/result_types.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {

// One run of the harness: how the process ended and the result file it left, if any.
struct HarnessRun {
  SandboxResult process;
  std::optional<EvalResult> result;  // the parsed result JSON
  std::string result_error;          // why there is no result (missing, unparsable)
  // The result file was there but its seal did not verify: someone other than the judge wrote it,
  // and only code running in the sandbox (the candidate's) could have.
  bool forged = false;
  // Seconds the job waited for its turn on the GPU before it started: another job of this process
  // had the GPU (profiler/evaluate/jobs/gpu_turns.h).
  double waited_for_gpu_s = 0;
};

// The harness's exit status when the candidate killed it (its stderr then has a
// "kb-harness: candidate crashed: ..." line).
inline constexpr int kHarnessCandidateCrashed = 3;
// ... and when the original (baseline) did: not the candidate's fault.
inline constexpr int kHarnessBaselineCrashed = 4;

// The verdict of a run:
//   killed at the time limit        -> timed_out ("hung: killed after 120 s")
//   killed for host memory          -> rejected
//   exit 4 (the original crashed)  -> infra_error
//   exit 3, a signal, or "illegal memory access" in stderr -> crashed; the reason is built from the
//                                   exit status and known_crash_cause(), never copied from stderr
//   exit 0 with a result            -> that result
//   anything else                   -> infra_error (not the candidate's fault)
EvalResult classify_harness_run(const HarnessRun& run, int64_t max_memory_mb);

// The cause named in a crash line, from a fixed list of CUDA's and the harness's own error strings
// ("an illegal memory access was encountered", "it called exit()"); empty when none is there.
std::string known_crash_cause(const std::string& text);

// The line that says why the candidate crashed, from the harness's stderr; empty if none.
std::string harness_crash_line(const std::string& stderr_text);

// The host's accept rule over the harness's timings: a verified candidate is accepted only when
// the speedup rule (core/speedup_rule.h, the judge's too) accepts its timings: the geometric-mean
// speedup reaches `min_speedup`, at least one size is significantly faster and none is
// significantly slower; otherwise not_faster with the rule's reason. Work escaping the
// caller's stream (escaped_work) is rejected whatever the speedup. A timing above the roofline
// floor changes nothing: it is noted (roofline_advice). Verdicts other than
// pending/accepted/not_faster, and unverified results, are left alone.
void apply_accept_rule(EvalResult& result, double min_speedup);

// Non-empty (the reason) when a candidate's timings show GPU work that outlives the call as the
// caller's stream sees it: at every size timed one call a sample, the CUPTI span of one call is
// longer than its event-timed median by more than the original's own span allows (25% over the
// original's ratio, at least 5%). The verification's traced calls find work on another stream
// however little there is; this finds work whose trace the verification never got. Only
// measurements count here: the roofline floor (estimated bytes over measured bandwidth) is not one.
std::string escaped_work(const EvalResult& result);

// Advice, never a verdict: a sentence when `who` ("baseline" or "candidate") ran faster than the
// roofline floor at this size (over 100% of it), saying the floor rests on the spec's estimated
// bytes and FLOPs. Empty otherwise. apply_accept_rule appends it to the candidate's timing notes
// and to the reason of an accepted or not_faster verdict.
std::string roofline_advice(const SizeTiming& t, const char* who);

// The job cut down to the size sets `indices` (in that order): sanitizer runs are 10-100x slower
// than normal ones. Configured sets only: the generalization sizes go (verify_only_sizes = 0).
HarnessJob size_sets_job(const HarnessJob& job, const std::vector<size_t>& indices);
// The job cut down to one size set.
HarnessJob single_size_job(const HarnessJob& job, size_t index);
// The configured size set that moves the fewest bytes (the first of equals).
size_t smallest_size_index(const HarnessJob& job);
// The configured size set that moves the most bytes (the first of equals).
size_t largest_size_index(const HarnessJob& job);

}  // namespace kb::profiler
