// The CUDA graph pass: many callers capture their work in a CUDA graph and replay it, and a
// launcher that synchronizes, allocates with a non-stream-ordered API, queues work on a stream it
// forked and never joined, or on the legacy default stream, breaks their program (or is replayed
// with stale results). One call of each variant is captured on the stream it is given, in global
// capture mode, at the plan's size set, instantiated, and replayed twice on the same buffers with
// new input contents (the scalars the graph holds kept); each replay's outputs must match the
// original's. An original that cannot be captured skips the pass (the report says why); a
// candidate that cannot, where the original can, is `rejected` naming the call that broke the
// capture.
#pragma once

#include "profiler/judge/passes/pass_runs.h"

namespace kb::judge {

// Pending when passed or skipped. Throws VariantGone for the candidate's crash; a crash of the
// original restarts its server and skips the pass.
VerificationOutcome check_graph_capture(const PassPlan& plan, PassContext& ctx);

}  // namespace kb::judge
