// Which stream a launcher with a `stream` argument is given for one argument slot, and what
// follows from it. Host-only decisions (no CUDA types), unit-tested without a GPU.
//
// A real caller's stream is often non-blocking (cudaStreamNonBlocking), so by default the
// launcher gets exactly that: a stream of its server's that is ordered with nothing else, not
// even the legacy default stream. A second verification pass (stream_pass.h) gives it the
// per-thread default stream (cudaStreamPerThread) instead, the other stream callers commonly hand
// a library.
#pragma once

#include <cstdint>
#include <string>

namespace kb::judge {

enum class StreamChoice : int32_t {
  launcher_stream = 0,     // the server's own non-blocking stream (timing, verification)
  per_thread_default = 1,  // cudaStreamPerThread (the per-thread default-stream pass)
  second_caller = 2,       // a second non-blocking stream of the server's (the concurrent-callers pass)
};

// The choice a bind request's `value` names; anything else is no choice the judge makes.
bool stream_choice_from_wire(int32_t value, StreamChoice& choice);

// Where the judge orders its own work around a launcher's call (the L2 flush, the blocking
// kernel, the timing events, the call's gate and marker, the completion event).
enum class OrderStream {
  legacy_default,  // a launcher without a stream argument: the legacy default stream, as before
  given_stream,    // the stream the launcher was given: its work must be ordered there
};
OrderStream order_stream_for(bool has_stream_arg);

// "the stream argument 'stream'" / "the stream argument 'stream' (the per-thread default stream)"
// / "the default stream": how reasons name the stream the launcher was given.
std::string describe_given_stream(const std::string& arg_name, StreamChoice choice);

}  // namespace kb::judge
