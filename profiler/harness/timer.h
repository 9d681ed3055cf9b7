// Timing of launcher calls in the manner of nvbench's cold measurement: each sample starts with
// a cold L2 (restored inout data, the cache evicted), a blocking kernel holds the default stream
// while the sample's launches are queued, and CUDA events on the legacy default stream bracket
// the work. Kernels shorter than graph_below_us are timed K launches per sample (a CUDA graph
// when the launcher's stream can be captured, back-to-back launches otherwise). Baseline and
// candidate samples alternate, so drifts in clock or temperature hit both alike.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "core/result_types.h"
#include "profiler/harness/activity_monitor.h"
#include "profiler/harness/arg_set.h"
#include "profiler/harness/clock_monitor.h"
#include "profiler/harness/job_io.h"
#include "profiler/harness/variant_call.h"

namespace kb::harness {

// A variant to time, with its arguments filled and their inouts snapshotted (ArgSet::
// snapshot_inouts): every call the Timer makes starts from that snapshot.
struct TimedVariant {
  Who who = Who::baseline;
  EntryFn fn = nullptr;
  ArgSet* args = nullptr;
};

// What a short traced run of a variant showed (CUPTI activity, cold L2 before each call).
struct CallProfile {
  double span_us = 0;  // median over the calls: first activity start to last activity end
  std::vector<ActivityRecord> records;  // of the last call
  bool on_per_thread_stream = false;    // every activity ran on this thread's per-thread default stream
  std::string note;                     // why there is no trace (CUPTI activity unavailable), else empty
};

class Timer {
 public:
  Timer(const RunnerJob& job, ClockMonitor& clocks, ActivityMonitor& activity);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Traces `calls` calls of `v` (each after an L2 flush). Throws VariantFault. Without CUPTI
  // activity (another profiler attached, say) it returns an empty profile with a note.
  CallProfile profile_calls(const TimedVariant& v, int calls);

  // Times the variants (one or two) at one size set until the stopping rule says so; returns one
  // TimingStats per variant. `profiles` (same order) tell which can be captured as a graph.
  std::vector<TimingStats> measure(const std::vector<TimedVariant>& variants,
                                   const std::vector<CallProfile>& profiles);

  // Evicts the L2 (asynchronously, on the legacy default stream).
  void flush_l2();

 private:
  struct State;
  double take_sample(State& s, bool allow_graph);  // us per launch; < 0 when the sample is void
  void warm_up(const TimedVariant& v);
  void try_capture(State& s);

  const RunnerJob& job_;
  ClockMonitor& clocks_;
  ActivityMonitor& activity_;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  int* flush_sink_ = nullptr;
  int32_t* release_ = nullptr;    // host-mapped flags of the blocking kernel
  int32_t* timed_out_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace kb::harness
