// One run of the judge on a job: start a variant server for the original and one for the
// candidate, then verify, time or profile them as the job's mode says, filling an EvalResult as
// it goes (so a dead server still leaves what was learned). The judge itself loads no variant.
#pragma once

#include <string>

#include "core/result_types.h"
#include "profiler/harness/job_io.h"

namespace kb::harness {

// Runs `job` (read from `job_path`, which the servers read too), filling `result`. Returns
// normally with a verdict for every outcome that is a result (including a wrong, rejected or
// crashed candidate and one that cannot be loaded); throws VariantGone when the original's server
// dies and HarnessError when the judge itself fails.
void run_job(const RunnerJob& job, const std::string& job_path, bool verbose, EvalResult& result);

}  // namespace kb::harness
