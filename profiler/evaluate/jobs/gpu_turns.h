// Turns on one GPU among the jobs of this process. A timing or a counter is only true of a GPU
// that runs nothing else at the time; a verification or a compute-sanitizer run needs no such
// quiet, but its kernels would land inside another job's timed calls. So every job this process
// sends to a GPU takes a turn first: a measured job (timing, counters, the calibration) runs
// alone on its GPU, unmeasured jobs (verification only, the strict pass, the sanitizer's tools)
// run side by side. Turns are granted in the order they were asked for, so neither kind can
// starve the other: a measured job waits for the unmeasured ones ahead of it, and unmeasured
// jobs asked for after it wait for it.
//
// This is what lets `kernelbot run` re-verify and publish one kernel's winner while the next
// kernel's search compiles: their GPU work interleaves by turns, never inside a measurement.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "core/harness_job.h"

namespace kb::profiler {

enum class GpuUse {
  measured,    // needs the GPU to itself: its numbers are timings or counters
  unmeasured,  // may share the GPU with other unmeasured work
};

// The phase (EvalResult::phase_s) a job's wait for its turn is counted in.
inline constexpr const char* kWaitingForTheGpu = "waiting for the GPU";

// What a job needs of its GPU: timing and counters are measured, a compute-sanitizer run (whatever
// its mode) and verification alone are not.
GpuUse gpu_use_of(const HarnessJob& job);

class GpuTurns {
 public:
  // Held for the length of one job; releases the turn when it ends.
  class Turn {
   public:
    Turn(Turn&& other) noexcept;
    Turn& operator=(Turn&&) = delete;
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn();
    // Seconds spent waiting for the turn.
    double waited_s() const { return waited_s_; }

   private:
    friend class GpuTurns;
    Turn(GpuTurns* turns, GpuUse use, double waited_s) : turns_(turns), use_(use), waited_s_(waited_s) {}
    GpuTurns* turns_;
    GpuUse use_;
    double waited_s_;
  };

  // Blocks until it is this caller's turn for `use`.
  Turn take(GpuUse use);
  // How many callers are waiting for their turn now.
  uint64_t waiting();

 private:
  void give_back(GpuUse use);

  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t next_ticket_ = 0;  // the ticket the next caller gets
  uint64_t serving_ = 0;      // the ticket whose turn is next
  int64_t unmeasured_running_ = 0;
  bool measured_running_ = false;
};

// The turns of CUDA device `device` (its index in this process), one object per device for the
// life of the process: every evaluator of this process on that GPU shares it.
GpuTurns& gpu_turns(int device);

}  // namespace kb::profiler
