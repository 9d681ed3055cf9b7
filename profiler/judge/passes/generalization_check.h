// The generalization pass: after the main verification, the candidate is verified once at each
// of the job's verification-only size sets (sizes nobody configured, drawn per job by the bot:
// the smallest allowed, odd, prime, beyond the largest configured), so a kernel tuned to the
// configured sizes (a fixed grid, a fast path keyed on n) is caught. Each set's buffers live only
// for its own call. The original is called first: a size it fails on is skipped (written to the
// report's skipped_checks), not held against the candidate.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Pending when every generalization set passed or was skipped; otherwise the candidate's verdict
// with the set named. Throws VariantGone when the candidate's server dies (the phase names the
// set), HarnessError for the judge's own failures.
VerificationOutcome check_generalization_sizes(const DecodedJob& job, const Servers& servers,
                                               VerificationReport& report);

}  // namespace kb::judge
