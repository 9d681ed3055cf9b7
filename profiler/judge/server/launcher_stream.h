// The stream a launcher with a `stream` argument (role = "stream") is given: one per variant
// server, created by the server, never by the variant. Timing, verification and the escape checks
// follow it: graph capture begins on it, and work queued on it counts as the launcher's.
//
// It is a non-blocking stream (cudaStreamNonBlocking), as a real caller's stream often is: it is
// ordered with nothing else, not even the legacy default stream. So everything the harness does
// around a launcher's call is queued on it explicitly (order_stream()): the L2 flush, the blocking
// kernel and the timing events (timer.h), the gate, marker and completion event of a traced call
// (traced_call.h). An honest launcher's work is bracketed by the same events as under the blocking
// stream this used to be; work a launcher queues on the legacy default stream (a kernel or a
// cudaMemsetAsync without a stream) or on a stream of its own that the given stream does not wait
// for is ordered with none of it, and the call's gate and marker reject it. The judge's inputs
// are complete before a server is asked anything (the judge synchronizes its own process first).
//
// A slot bound with StreamChoice::per_thread_default passes cudaStreamPerThread instead
// (stream_pass.h); the judge's brackets then go there. StreamChoice::second_caller passes a second
// non-blocking stream, created with the first, for the concurrent-callers pass. Launchers without a stream argument keep
// the legacy default stream for all of it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/buffers/stream_choice.h"
#include "profiler/judge/wire/job_io.h"

namespace kb::judge {

class LauncherStream {
 public:
  // Creates the stream when `job`'s launcher takes one. Throws HarnessError.
  explicit LauncherStream(const DecodedJob& job);
  ~LauncherStream();
  LauncherStream(const LauncherStream&) = delete;
  LauncherStream& operator=(const LauncherStream&) = delete;

  bool given() const { return handle_ != nullptr; }
  // The stream the launcher receives under `choice` (null without a stream argument).
  cudaStream_t handle(StreamChoice choice = StreamChoice::launcher_stream) const;
  // Where the judge's own work around a call is ordered: the stream the launcher receives, else
  // (no stream argument) the legacy default stream.
  cudaStream_t order_stream(StreamChoice choice = StreamChoice::launcher_stream) const;
  // Where the launcher's work is expected, and where graph capture begins: the given stream, else
  // the per-thread default stream (the legacy one cannot be captured).
  cudaStream_t capture_stream() const { return handle_ ? handle_ : cudaStreamPerThread; }
  // "the stream argument 'stream'" or "the default stream", for messages.
  std::string describe(StreamChoice choice = StreamChoice::launcher_stream) const;
  // Hands the stream to every stream argument of `set` (a no-op without one).
  void bind(ArgSet& set, StreamChoice choice = StreamChoice::launcher_stream) const;
  // The CUPTI id of the stream the launcher receives under `choice` (a probe kernel the first
  // time), or of the legacy default stream without a stream argument. Throws HarnessError.
  uint32_t cupti_id(StreamChoice choice = StreamChoice::launcher_stream) const;

 private:
  cudaStream_t handle_ = nullptr;
  cudaStream_t second_ = nullptr;  // a second caller's (StreamChoice::second_caller), created alike
  std::string arg_name_;
  mutable std::optional<uint32_t> cupti_id_, per_thread_cupti_id_, second_cupti_id_, legacy_cupti_id_;
};

}  // namespace kb::judge
