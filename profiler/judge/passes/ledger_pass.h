// The citizen's ledger: a launcher lives in a long-running program, so over many calls nothing
// may grow or change that the original leaves alone. Each variant makes two warm-up calls and
// then kLedgerCalls calls at the plan's size set, each waited for as a caller does, while its
// server counts what they created and did not release (device, pinned and managed allocations,
// events, streams, graphs: api_ledger.h), its host threads and every device-wide setting a call
// can change (cache configuration, cudaLimits, L2 persistence, the default memory pool, the
// current device and its flags, the caller's stream's access policy window: against what they
// were before the variant's library was loaded, contract_calls.h); the judge measures
// the device's free memory from its own process around them. One more call follows with an
// error the caller left pending, which must stay pending. A difference from the original is
// `rejected`, naming the resource and the count (ledger_compare.h).
#pragma once

#include "profiler/judge/passes/pass_runs.h"

namespace kb::judge {

inline constexpr int kLedgerCalls = 20;

// Pending when passed or skipped. Throws VariantGone for the candidate's crash; a crash of the
// original restarts its server and skips the pass.
VerificationOutcome check_ledger(const PassPlan& plan, PassContext& ctx);

}  // namespace kb::judge
