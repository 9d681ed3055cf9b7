// The variant server's side of the contract passes: calls the way a real caller's program makes
// them, beyond one call on one stream. A graph captured from one call and replayed
// (graph_capture_pass.h), two calls at once (concurrent_callers_pass.h), many calls with a ledger
// of what they left behind (ledger_pass.h). Runs in a variant server; the judge checks the
// outputs itself and treats every number these send back as the variant process's word.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/tracing/ledger_compare.h"
#include "profiler/judge/wire/server_wire.h"

namespace kb::judge {

// One call captured on `stream` in global capture mode (the mode that refuses what would break a
// graph anywhere in the process) and instantiated into `*exec` (replacing one there). Replies ok
// with value 1 when captured, else ok with value 0 and a note naming what broke the capture: the
// first failing CUDA call, the end of capture's own error, or an empty graph. Throws VariantFault
// for a sticky fault.
Reply capture_one_call(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream, cudaGraphExec_t* exec);

// Launches `exec` on `stream` and waits for it. Throws VariantFault.
Reply replay_graph(cudaGraphExec_t exec, Who who, cudaStream_t stream);

// Two calls at once: `threads` false, both launched from this thread, one on each stream, then
// both waited for; `threads` true, each from a host thread of its own that waits for its stream.
// Throws VariantFault for the first call that failed.
Reply call_concurrently(EntryFn fn, Who who, ArgSet& first, cudaStream_t first_stream, ArgSet& second,
                        cudaStream_t second_stream, bool threads);

// Every device-wide setting a launcher's call can change, as text by name: the cache
// configuration, every cudaLimit, the default memory pool's release threshold, the current device
// and its flags, and `stream`'s L2 access policy window (when not null). A query the device
// refuses reads "unavailable".
using DeviceSettings = std::map<std::string, std::string>;
DeviceSettings device_settings(cudaStream_t stream);

// What a server knew before the first call: the device settings read before the variant's library
// was loaded, and what loading it did through the CUDA API (api_ledger.h).
struct BeforeTheCalls {
  DeviceSettings settings;
  LibraryLoad load;
};

// `calls` calls on `slot` after two warm-up calls, each waited for on `stream` as a caller does,
// with the ledger (ledger_compare.h) of what they left behind in the note. The settings are
// compared with `before`'s, read before the variant's library was loaded: a setting changed at
// the first call, or by the library's loading, counts too; what loading did is in the note as
// well. Throws VariantFault.
Reply ledger_calls(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream, int calls, const BeforeTheCalls& before);

// One call with an error the caller left pending before it (a failed runtime call); the note says
// what became of the error: "kept", "cleared", "replaced by cudaError...", "the launcher returned
// N". Throws VariantFault.
Reply call_with_error_pending(EntryFn fn, Who who, ArgSet& slot, cudaStream_t stream);

}  // namespace kb::judge
