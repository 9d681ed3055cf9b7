// The stream a launcher with a `stream` argument (role = "stream") is given: one per variant
// server, created by the server, never by the variant. Timing, verification and the escape checks
// follow it: graph capture begins on it, and work queued on it counts as the launcher's.
//
// It is a blocking stream (cudaStreamCreate without cudaStreamNonBlocking), on purpose: a blocking
// stream is ordered with the legacy default stream, so everything the harness already does there
// still brackets the launcher's work without change: the blocking kernel holds it, the L2 flush
// and the judge's fills precede it, the timing events and the completion event of the escape
// check follow it. Work a launcher puts on a stream of its own created with cudaStreamNonBlocking
// is not ordered with any of that, so it still escapes the timed region, and the CUPTI checks
// still reject it. (A non-blocking harness stream would have needed every one of those steps
// moved onto it, and a launcher that queues a memset on the legacy stream besides its stream
// would have raced with its own kernels.)
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "profiler/judge/arg_set.h"
#include "profiler/judge/job_io.h"

namespace kb::judge {

class LauncherStream {
 public:
  // Creates the stream when `job`'s launcher takes one. Throws HarnessError.
  explicit LauncherStream(const DecodedJob& job);
  ~LauncherStream();
  LauncherStream(const LauncherStream&) = delete;
  LauncherStream& operator=(const LauncherStream&) = delete;

  bool given() const { return handle_ != nullptr; }
  cudaStream_t handle() const { return handle_; }
  // Where the launcher's work is expected, and where graph capture begins: the given stream, else
  // the per-thread default stream (the legacy one cannot be captured).
  cudaStream_t capture_stream() const { return handle_ ? handle_ : cudaStreamPerThread; }
  // "the stream argument 'stream'" or "the default stream", for messages.
  std::string describe() const;
  // Hands the stream to every stream argument of `set` (a no-op without one).
  void bind(ArgSet& set) const;
  // The CUPTI id of the given stream (a probe kernel the first time). Throws HarnessError.
  uint32_t cupti_id() const;

 private:
  cudaStream_t handle_ = nullptr;
  std::string arg_name_;
  mutable std::optional<uint32_t> cupti_id_;
};

}  // namespace kb::judge
