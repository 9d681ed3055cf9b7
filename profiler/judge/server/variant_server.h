// kernelbot-harness --serve: the process that loads exactly one compiled variant (the original or
// a candidate) and runs its launcher when the judge asks, on buffers the judge owns and maps into
// it through CUDA IPC. Nothing it answers decides a verdict on its own: the judge reads the
// outputs itself and bounds the times it reports with its own clock.
#pragma once

#include <string>

#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

// Waits on socket `fd` for the job (send_text: the job file's text, from the judge, never from a
// file a candidate could rewrite), creates a CUDA context on `device`, loads the library the job
// names, and serves requests until `quit` or the judge goes away. It is not told whose variant it
// serves (server_identity.h). Two replies come first: whether the server is ready (ok, or
// harness_error: its own failure, sent before any variant code runs), then whether the library
// loaded. Returns the process's exit code (kExitOk, or kExitVariantContextLost after a sticky
// fault, which leaves the CUDA context unusable).
int serve_variant(int fd, int device);

}  // namespace kb::judge
