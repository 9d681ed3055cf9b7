// The slice pass: no assumption about how many SMs run the call at once. A kernel that waits for
// blocks it assumes are all running (a grid-wide barrier built from atomics without a cooperative
// launch, a grid sized for a fixed SM count that its blocks then wait on) works on the judge's
// whole GPU and deadlocks on a smaller one, under MPS, or beside the caller's other work. One call
// of each variant at the largest size set runs on a slice of the GPU (a green context of a few
// SMs, gpu_slice.h) under a watchdog: the original first, then the candidate, which must finish
// within a bound set by the original's time there and give the original's outputs.
//
// An original that fails or hangs there skips the pass (the report says so); a candidate that
// hangs is `timed_out` and one that fails is `crashed`, both naming the slice. A cooperative launch
// the runtime refuses as too large for the slice is the runtime keeping the guarantee this pass
// looks for: noted, not held against the candidate. A GPU or driver without green contexts skips
// the pass, named in the report.
#pragma once

#include "profiler/judge/passes/pass_runs.h"

namespace kb::judge {

// The SMs the slice is asked for: an eighth of an H100/H200, and the driver's granularity on
// every architecture with green contexts (it rounds up).
inline constexpr unsigned kSliceMinSms = 16;

// How long the candidate's call on the slice may take when the original's took `original_s`:
// twenty times as long, and never less than ten seconds (a slice is slow to start on), at most
// `limit_s`.
double slice_watchdog_s(double original_s, double limit_s);

// Pending when passed or skipped. Throws VariantGone for the candidate's crash or hang.
VerificationOutcome check_gpu_slice(const PassPlan& plan, PassContext& ctx);

}  // namespace kb::judge
