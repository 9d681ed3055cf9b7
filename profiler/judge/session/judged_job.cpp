#include "profiler/judge/session/judged_job.h"

#include <chrono>
#include <cstdio>

#include "common/clock.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/session/memory_audit.h"
#include "profiler/judge/wire/variant_process.h"

namespace kb::judge {
namespace {

void harness_failed(JudgedJob& out, JobProcesses& processes, const std::string& what, const std::string& during) {
  processes = {};
  out.exit_code = kExitHarnessError;
  out.result.verdict = Verdict::infra_error;
  out.result.reason = "the harness failed: " + what;
  std::fprintf(stderr, "kb-harness: error: %s (during %s)\n", what.c_str(), during.c_str());
}

// Failing closed on GPU memory (memory_blame.h): the judge's own work ran out of it while the
// candidate's server was up. The candidate's failure when its process held the difference.
bool blame_memory_shortage(JudgedJob& out, JobProcesses& processes, const std::string& error) {
  if (!is_out_of_memory(error) || !processes.candidate || !processes.baseline) return false;
  const std::string& during = current_phase();
  const std::optional<std::string> blame = memory_shortage_blame(end_servers_measuring_memory(processes), error);
  if (!blame) return false;
  out.result.verdict = Verdict::rejected;
  out.result.reason = *blame + " (" + during + ")";
  out.exit_code = kExitOk;
  return true;
}

// A verdict reached with sizes skipped for want of GPU memory: when the candidate's process held
// the memory that would have let them be verified, the verdict is `rejected` instead.
void blame_memory_skips(JudgedJob& out, JobProcesses& processes) {
  if (processes.memory_skips.empty() || !processes.candidate || !processes.baseline) return;
  if (!verdict_is_correct(out.result.verdict) && out.result.verdict != Verdict::pending) return;
  const std::vector<MemorySkip> skips = std::move(processes.memory_skips);
  processes.memory_skips.clear();
  const MemoryHeld held = end_servers_measuring_memory(processes);
  for (const MemorySkip& s : skips) {
    if (const auto blame = memory_skip_blame(held, s.size, s.needed, s.free_bytes)) {
      out.result.verdict = Verdict::rejected;
      out.result.reason = *blame;
      out.result.verification.passed = false;
      out.result.verification.failure = *blame;
      return;
    }
  }
}

}  // namespace

JudgedJob judge_job(const std::string& job_text, const std::string& origin, JobProcesses& processes,
                    const StartServers& start_servers) {
  const auto start = std::chrono::steady_clock::now();
  JudgedJob out;
  DecodedJob job;
  try {
    job = parse_job(job_text, origin);
  } catch (const JobError& e) {
    std::fprintf(stderr, "kb-harness: invalid job: %s\n", e.what());
    out.exit_code = kExitUsage;
    return out;
  }
  out.has_result = true;
  try {
    start_servers(job, processes);
    out.result.phase_s["start"] += seconds_since(start);
  } catch (const std::exception& e) {
    harness_failed(out, processes, e.what(), "starting");
    return out;
  }
  try {
    run_job(job, processes, out.result);
    blame_memory_skips(out, processes);
  } catch (const VariantGone& g) {
    processes = {};  // the other server is asked to quit and waited for
    if (g.who == Who::candidate) {
      out.result.verdict = g.timed_out ? Verdict::timed_out : Verdict::crashed;
      out.result.reason = std::string("the candidate crashed: ") + g.what() + " (" + current_phase() + ")";
      out.exit_code = g.sticky || !g.timed_out ? kExitCandidateCrashed : kExitOk;
    } else {
      out.result.verdict = Verdict::infra_error;
      out.result.reason = std::string("the original kernel failed: ") + g.what() + " (" + current_phase() + ")";
      out.exit_code = kExitBaselineCrashed;
    }
  } catch (const std::exception& e) {
    if (!blame_memory_shortage(out, processes, e.what())) harness_failed(out, processes, e.what(), current_phase());
  }
  return out;
}

}  // namespace kb::judge
