// Special values: after the main trials, one call of each variant per case of
// special_values_plan.h (one float input at a time, every size and every float input covered) on
// inputs where that buffer holds +-Inf, NaN, -0 and denormals mixed into ordinary values
// (special_values.h), wherever the original's outputs stay defined there: the
// original runs on them twice first, and when it faults, disagrees with itself or leaves an output
// with no finite value (special_outputs.h), the case is skipped and the report's skipped_checks
// says why. Otherwise the candidate's outputs must be non-finite (NaN or +-Inf) exactly where the
// original's are (non_finite_rule.h) and finite values within the tolerance.
#pragma once

#include <memory>
#include <vector>

#include "core/result_types.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// `base_sets[s]` and `cand_sets[s]` are bound as slot s in the original's and the candidate's
// server; their contents and `checks[s]` are overwritten. Errors of these calls are not added to
// `report`'s worst errors (a value near the type's largest has a tolerance to match); skipped
// sizes are added to its skipped_checks. When the original faults, its server is restarted and
// every slot bound again. Throws VariantGone and HarnessError as verify_candidate does.
VerificationOutcome check_special_values(const DecodedJob& job, const Servers& servers,
                                         const std::vector<std::unique_ptr<ArgSet>>& base_sets,
                                         const std::vector<std::unique_ptr<ArgSet>>& cand_sets,
                                         std::vector<SizeChecks>& checks, DeviceScratch& scratch,
                                         VerificationReport& report);

}  // namespace kb::judge
