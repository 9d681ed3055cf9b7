// The guard zones of the sets a judged call used (arg_set.h, guard_layout.h), as a verdict: a
// write outside a candidate's buffers is a rejection naming the buffer, the side and the offset;
// outside the original's, the user's own bug (an infra_error saying so, never the candidate's).
#pragma once

#include <string>
#include <vector>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/buffers/guard_layout.h"
#include "profiler/judge/outputs/verification_outcome.h"

namespace kb::judge {

// `found` (non-empty) in a set lent to the original (`original`) or to the candidate, `when`
// naming the call ("trial 1 of 3 at size n=1000 ...").
VerificationOutcome guard_outcome(bool original, const std::vector<GuardViolation>& found, const std::string& when);

// Checks both sets of a call on the GPU (the original's first). Pending when every guard holds.
VerificationOutcome check_guards(const ArgSet& base, const ArgSet& cand, const std::string& when);

}  // namespace kb::judge
