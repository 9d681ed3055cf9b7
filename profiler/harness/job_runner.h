// One run of the harness on a job: load the variants, then verify, time or profile them as the
// job's mode says, filling an EvalResult as it goes (so a crash still leaves what was learned).
#pragma once

#include "core/result_types.h"
#include "profiler/harness/job_io.h"

namespace kb::harness {

// Runs `job`, filling `result`. Returns normally with a verdict for every outcome that is a
// result (including a wrong or rejected candidate and a candidate that cannot be loaded); throws
// VariantFault when a variant faults and HarnessError when the harness itself fails.
void run_job(const RunnerJob& job, EvalResult& result);

}  // namespace kb::harness
