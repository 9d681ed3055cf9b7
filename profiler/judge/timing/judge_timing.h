// Timing, as the judge runs it. The servers take the samples (events around their own launches);
// the judge decides everything else: before every sample it fills each variant's buffers with
// fresh inputs from a new seed (on the GPU, outside the timed region) and poisons the outputs;
// after every sample it compares the candidate's outputs and inputs with the original's on the
// same inputs. So no timed call can be skipped, cached or answered from an earlier call: every
// sample is checked. Afterwards, at each size, a batch of back-to-back calls on fresh inputs is
// timed with the judge's own clock and its outputs checked, bounding the event-timed claim from
// outside (wall_clock_bound.h). Samples of the two variants alternate (and which goes first), so drifts in clock or
// temperature hit both alike.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/timing/phase_times.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Times the original (and the candidate, when there is one) at every size set into
// result.timings and sets the verdict: accepted / not_faster from the speedups, wrong_result when a
// timed sample's outputs differ, rejected when the wall clock disagrees, pending for the original
// alone. Throws VariantGone and HarnessError. The wall-clock cross-checks are counted in `phases`
// as "wall-clock check", the rest as "timing".
void run_timing(const DecodedJob& job, const Servers& servers, EvalResult& result, PhaseTimes& phases);

}  // namespace kb::judge
