// The judge: kernelbot-harness --job. It loads no variant code. It owns every buffer (inputs it
// generated from seeds, outputs it poisoned), lends them to the variant servers through CUDA IPC,
// asks the servers to call their launchers, and reads the results back itself: a candidate can
// compute or fail, but cannot tell the judge what it computed, which inputs it saw, or write the
// verdict (the judge's result is sealed with a key the candidate never sees).
#pragma once

#include <functional>
#include <vector>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/buffers/stream_choice.h"
#include "profiler/judge/call/memory_blame.h"
#include "profiler/judge/wire/job_io.h"
#include "profiler/judge/wire/variant_process.h"

namespace kb::judge {

// The servers of one job; `candidate` is null for the original alone (profiling).
struct Servers {
  VariantProcess* baseline = nullptr;
  VariantProcess* candidate = nullptr;
  double timeout_s = 3600;  // per request; the parent's wall-time limit is the real bound
  // Replaces the original's server with a fresh one that has loaded the same library (and updates
  // `baseline`), for the checks that ask the original first whether it supports a condition (a
  // size, an alignment) and skip the condition when it faults: a sticky fault ends its server.
  // The fresh server holds no slots. Throws HarnessError when it cannot be started.
  std::function<VariantProcess*()> restart_original;
  // Where a check that skips a size for want of GPU memory records it (memory_blame.h); may be null.
  std::vector<MemorySkip>* memory_skips = nullptr;
};

// Lends `set` (the judge's buffers) to `server` as slot `id`, with the scalars the set holds; a
// stream argument passes the stream `stream` names (stream_choice.h).
void bind_slot(VariantProcess& server, int id, const ArgSet& set, double timeout_s,
               StreamChoice stream = StreamChoice::launcher_stream);

// A request naming `slots`, with `value`.
Request slot_request(Op op, const std::vector<int>& slots, int value = 0);

// The scalars `set` holds (so a call uses the judge's values, not the server's).
void put_scalars(Request& r, const ArgSet& set);

// Throws HarnessError for a harness_error reply (the server's own failure).
void expect_no_harness_error(const Reply& r, const char* what);

// The same during a verdict (verification and timing), failing closed: a harness_error from the
// candidate's server is the candidate's failure (VariantGone, its verdict `crashed`), not a check
// skipped or an evaluation that "could not run". That process runs the candidate's code, which can
// take the GPU memory the server's own work needs, leave an error the server then trips on, or
// forge the reply outright. The original's stays the judge's HarnessError.
void expect_no_harness_error(const Reply& r, const char* what, const VariantProcess& server);

// Fills input `i` of `set` on the GPU, asynchronously on `stream`, with the values fill_input
// (arg_inputs.h) gives it on the host for the same (size set, distribution, seed): its range
// when it has one, else its distribution, else `trial`. The argument index is the generator's
// stream, as on the host.
void fill_input_on_device(ArgSet& set, size_t i, Distribution trial, uint64_t seed, cudaStream_t stream);

}  // namespace kb::judge
