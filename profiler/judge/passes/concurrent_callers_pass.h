// The concurrent-callers pass: a library's launcher is called by programs that run several
// streams, or several host threads, at once, and a launcher that keeps scratch memory, a counter
// or a cached plan in a static variable shares it between those calls. Each variant gets two
// calls at once on separate buffers of two size sets (the plan's: the two smallest),
// first launched from one thread onto two non-blocking streams, then from two host threads, and
// each call's outputs must match the original's under the same condition. When the candidate's
// do not, the original is asked the same on the candidate's buffers after calling it one call at
// a time: if it fails too, the condition is skipped (the report says so), else the candidate is
// `wrong_result`.
#pragma once

#include "profiler/judge/passes/pass_runs.h"

namespace kb::judge {

// Pending when passed or skipped. Throws VariantGone for the candidate's crash; a crash of the
// original restarts its server and skips the pass.
VerificationOutcome check_concurrent_callers(const PassPlan& plan, PassContext& ctx);

}  // namespace kb::judge
