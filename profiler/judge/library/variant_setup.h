// Runs a loaded variant library's one-time setup (kb_setup, core/setup_contract.h) in its
// server, right after loading and before any call. Both servers of a job do exactly this: the
// setup learns nothing about whose library it is.
#pragma once

#include <string>

#include "core/setup_contract.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {

// "" when the library has no setup or it succeeded; else why it failed (setup_outcome.h). Work
// the setup queued is waited for here, so its errors are the setup's, not the first call's. A
// crash inside it is the server's crash during "running kb_setup" (CallScope).
std::string run_library_setup(SetupFn setup, Who who);

}  // namespace kb::judge
