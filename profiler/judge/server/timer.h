// Timing of launcher calls inside a variant server, in the manner of nvbench's cold measurement:
// each sample starts with a cold L2 (the cache evicted), a blocking kernel holds the caller's
// stream while the sample's launches are queued, and CUDA events on that stream bracket the work.
// The caller's stream is the launcher's stream argument (a non-blocking stream, launcher_stream.h)
// or, for a launcher without one, the legacy default stream: the flush, the blocker and both
// events are queued there, so an honest launcher's work is bracketed exactly as it was when the
// stream argument was a blocking stream and all of it went to the legacy default stream. Kernels shorter than graph_below_us are timed K launches per sample (a CUDA
// graph when the launcher's stream can be captured, back-to-back launches otherwise); launch k of
// a sample works on argument slot k % slots, each filled with fresh inputs by the judge.
//
// The numbers this class produces come from a process that runs variant code, so the judge
// (judge_timing.h) treats them as claims: it checks every sample's outputs and bounds the claim
// with its own clock.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/tracing/activity_monitor.h"

namespace kb::judge {

// A variant's calls: launch k works on slots[k % slots.size()]. `stream` is the stream the
// launcher is given (its stream argument), or null when it takes none.
struct TimedCalls {
  Who who = Who::baseline;
  EntryFn fn = nullptr;
  std::vector<ArgSet*> slots;
  cudaStream_t stream = nullptr;
  // Where capture begins and the graph replays: the given stream, else the per-thread default one.
  cudaStream_t capture_stream() const { return stream ? stream : cudaStreamPerThread; }
  // Where the L2 flush, the blocking kernel and the timing events go: the given stream, else the
  // legacy default stream (which a graph replayed on the per-thread default stream is ordered with).
  cudaStream_t order_stream() const { return stream ? stream : cudaStreamLegacy; }
};

// What a short traced run of a variant showed (CUPTI activity, cold L2 before each call).
struct CallProfile {
  // Median over the calls of the GPU's busy time: the union of the call's activity intervals. Not
  // first start to last end: under tracing the host's launches of a two-kernel call were seen
  // ~400 us apart on an H100 (an honest candidate's 10 us call looked like escaped work), and idle
  // time between activities is no work, escaped or not.
  double span_us = 0;
  std::vector<ActivityRecord> records;  // of the last call
  bool on_capture_stream = false;       // every activity ran on TimedCalls::capture_stream(): capturable
  std::string note;                     // why there is no trace (CUPTI activity unavailable), else empty
};

// One sample: microseconds per launch, or void (< 0) when the launcher waited on the blocking
// kernel (it synchronizes inside); later samples are then taken without the blocker.
struct SampleTime {
  double us_per_launch = -1;
  bool blocked = false;
};

class SampleTimer {
 public:
  SampleTimer(bool flush_l2);
  ~SampleTimer();
  SampleTimer(const SampleTimer&) = delete;
  SampleTimer& operator=(const SampleTimer&) = delete;

  // Traces `calls` calls on slot 0 (each after an L2 flush). Throws VariantFault. Without CUPTI
  // activity (another profiler attached, say) it returns an empty profile with a note.
  CallProfile profile_calls(const TimedCalls& v, int calls);
  void warm_up(const TimedCalls& v, int runs);  // throws VariantFault
  // Captures `launches` launches as a graph on the calls' capture stream; false when the launcher
  // cannot be captured. Replaces an earlier graph.
  bool capture(const TimedCalls& v, int launches);
  void drop_graph();
  // One sample of `launches` launches (the captured graph when there is one of that many).
  SampleTime sample(const TimedCalls& v, int launches);

  void flush_l2(cudaStream_t stream);  // asynchronously, on `stream`

 private:
  bool flush_ = true;
  bool use_blocker_ = true;
  cudaGraphExec_t graph_ = nullptr;
  int graph_launches_ = 0;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  int* flush_sink_ = nullptr;
  int32_t* release_ = nullptr;  // host-mapped flags of the blocking kernel
  int32_t* timed_out_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace kb::judge
