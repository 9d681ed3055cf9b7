// One run of the judge on a job: start a variant server for the original and one for the
// candidate, then verify, time or profile them as the job's mode says, filling an EvalResult as
// it goes (so a dead server still leaves what was learned). The judge itself loads no variant.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result_types.h"
#include "profiler/judge/call/memory_blame.h"
#include "profiler/judge/wire/job_io.h"
#include "profiler/judge/wire/variant_process.h"

namespace kb::judge {

// The variant servers of one job, started as soon as the judge knows it needs them: each creates
// its CUDA context once it has the job, while the judge creates its own.
struct JobProcesses {
  std::unique_ptr<VariantProcess> baseline, candidate;
  int device = 0;
  bool verbose = false;  // what the servers were started with (a restarted one gets the same)
  // Sizes the last job's verification skipped for want of GPU memory (memory_blame.h): whose
  // memory it was is settled when the job ends.
  std::vector<MemorySkip> memory_skips;
};
// The phase of a job under compute-sanitizer in which its calls run; a job that has it ran under
// the tool (harness_main times the servers' end then, memcheck's leak check).
inline constexpr const char* kCallsUnderTheTool = "calls under the tool";

JobProcesses start_job_processes(int device, bool baseline, bool candidate, bool verbose);

// Runs `job` (each server is told only its served_job, served_job.h), filling `result`; the
// servers `processes` does not need are ended. Returns normally with a verdict for every outcome that is a result (including a wrong, rejected or crashed candidate and one that
// cannot be loaded); throws VariantGone when the original's server dies and HarnessError when the
// judge itself fails.
void run_job(const DecodedJob& job, JobProcesses& processes, EvalResult& result);

}  // namespace kb::judge
