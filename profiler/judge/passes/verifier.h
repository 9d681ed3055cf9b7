// Verification of a candidate against the original: every trial draws fresh seeded inputs, the
// judge uploads identical data into two sets of its own buffers, each server runs its launcher on
// its set, and the judge reads both back and checks that the candidate wrote every output element
// the original wrote, left its inputs alone, produced no NaN/Inf where the original is finite,
// matched within tolerance, gives the same outputs when called twice on the same inputs (unless
// the original does not either), and finished all its device work before the caller's default
// stream said it was done. Trials run trial-major over the size sets on the same buffers, so a
// launcher that caches its first answer, or works at one size only, fails.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Fills `report` as it goes. `strict` triples the trials. Throws VariantGone when a server dies
// and HarnessError on the judge's own failures.
VerificationOutcome verify_candidate(const DecodedJob& job, const Servers& servers, bool strict,
                                     VerificationReport& report);

// Under compute-sanitizer: the candidate alone, one call per trial and size set (trial by trial:
// every size set, then again) on buffers of its server's own, freed after each call (the
// sanitizer's findings are the point; outputs were compared by the normal verification).
VerificationOutcome run_for_sanitizer(const DecodedJob& job, const Servers& servers);

}  // namespace kb::judge
