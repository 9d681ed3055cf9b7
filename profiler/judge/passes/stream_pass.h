// The per-thread default-stream pass: after the main verification passed (on the server's
// non-blocking stream), the launcher is given the per-thread default stream (cudaStreamPerThread)
// as its stream argument, as many callers do, for one traced call of each variant at the
// smallest size set. The original is called first: where it fails, the condition is skipped and
// the report's skipped_checks says so. The candidate's outputs must match the original's, its
// inputs stay unchanged and its work keep the order of that stream (traced_call.h), with reasons
// that name the condition.
//
// Cost: two argument sets at the smallest size set (and the judge's pristine copies), one traced
// call of each variant (one more of the original when an output's error scales with |inputs|).
// Launchers without a stream argument skip the pass.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// The candidate's failure, or pending. Throws VariantGone for the candidate's crash; a crash of
// the original restarts its server (servers.restart_original) and skips the condition.
VerificationOutcome verify_per_thread_stream(const DecodedJob& job, const Servers& servers, VerificationReport& report);

}  // namespace kb::judge
