#include "profiler/judge/judged_job.h"

#include <chrono>
#include <cstdio>

#include "common/clock.h"
#include "profiler/judge/cuda_check.h"
#include "profiler/judge/variant_process.h"

namespace kb::judge {
namespace {

void harness_failed(JudgedJob& out, JobProcesses& processes, const std::string& what, const std::string& during) {
  processes = {};
  out.exit_code = kExitHarnessError;
  out.result.verdict = Verdict::infra_error;
  out.result.reason = "the harness failed: " + what;
  std::fprintf(stderr, "kb-harness: error: %s (during %s)\n", what.c_str(), during.c_str());
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
    harness_failed(out, processes, e.what(), current_phase());
  }
  return out;
}

}  // namespace kb::judge
