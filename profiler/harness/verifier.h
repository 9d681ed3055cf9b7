// Verification of a candidate against the original: every trial draws fresh seeded inputs, runs
// both launchers on identical data in separate buffers, and checks that the candidate wrote every
// output element the original wrote, left its inputs alone, produced no NaN/Inf where the
// original is finite, matched within tolerance, and finished all its device work before the
// caller's default stream said it was done. Trials run trial-major over the size sets, in one
// process and on the same buffers, so a launcher that caches its first answer, or works at one
// size only, fails.
#pragma once

#include "core/result_types.h"
#include "profiler/harness/job_io.h"
#include "profiler/harness/variant_call.h"

namespace kb::harness {

// How a verification ended; `verdict` is pending when it passed.
struct VerificationOutcome {
  Verdict verdict = Verdict::pending;
  std::string reason;
};

// Fills `report` as it goes (a crash leaves the trials done so far). `strict` triples the trials.
// Throws VariantFault when a variant faults and HarnessError on the harness's own failures.
VerificationOutcome verify_candidate(const RunnerJob& job, EntryFn baseline, EntryFn candidate, bool strict,
                                     VerificationReport& report);

// Slack for clock conversion between CUPTI's GPU timestamps and the host's: work that ends later
// than this after the default stream reported completion is flagged.
inline constexpr uint64_t kLateWorkSlackNs = 20'000;

}  // namespace kb::harness
