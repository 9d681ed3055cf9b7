// The alignment pass of a verification: a caller may hand a launcher any pointer its element
// type allows, but the judge's own buffers all start on a 256-byte boundary, so a candidate that
// assumes 16-byte alignment (float4 accesses without a check) passes every main trial. After the
// main trials, at the smallest size set, every buffer is lent shifted past a 256-byte boundary
// (alignment_cases.h: 4, 8 and 16 bytes as the element types allow), one call of each variant per
// case, the original first. A case the original itself fails (a fault, an error, a write outside
// its buffers) is skipped and listed in the report's skipped_checks: the candidate is held only to
// what the original supports.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/call/judge.h"
#include "profiler/judge/call/judged_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Pending when the candidate matched the original in every case the original accepts. Throws
// VariantGone when the candidate's server dies (a misaligned access is a sticky fault); the
// judge's phase then names the case. Adds skipped cases to `report.skipped_checks`.
VerificationOutcome check_alignment(const DecodedJob& job, const Servers& servers, DeviceScratch& scratch,
                                    VerificationReport& report);

}  // namespace kb::judge
