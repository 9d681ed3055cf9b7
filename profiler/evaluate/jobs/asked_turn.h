// A job's turn on the GPU taken when its judge asks for it, not before the process starts: the
// judge's side is profiler/judge/wire/gpu_turn_channel.h. Under compute-sanitizer the judge's
// process spends seconds before it does any GPU work (the tool attaches to it and to the
// candidate's server, each makes a CUDA context); meanwhile the GPU serves other jobs, timings
// included, as it does while a spare server starts. The judge asks once the contexts are made and
// before any variant code loads; the turn is held from then until the job ends.
#pragma once

#include <atomic>
#include <optional>
#include <thread>

#include "profiler/evaluate/jobs/gpu_turns.h"

namespace kb::profiler {

class AskedTurn {
 public:
  // Makes the socket pair and starts waiting for the judge's request on it.
  AskedTurn(GpuTurns& turns, GpuUse use);
  ~AskedTurn();
  AskedTurn(const AskedTurn&) = delete;
  AskedTurn& operator=(const AskedTurn&) = delete;

  // The judge's end, to pass to the judge's process (--gpu-turn-fd).
  int judge_fd() const { return judge_fd_; }
  // The job is over: stops waiting and gives the turn back if it was taken. Returns the seconds
  // the judge waited for its turn (0 when it never asked).
  double finish();
  // Whether the judge asked for its turn (after finish()).
  bool asked() const { return asked_; }

 private:
  void serve();

  GpuTurns& turns_;
  GpuUse use_;
  int own_fd_ = -1;
  int judge_fd_ = -1;
  std::atomic<bool> stop_{false};
  bool asked_ = false;
  double waited_s_ = 0;
  std::optional<GpuTurns::Turn> turn_;
  std::thread waiter_;
};

}  // namespace kb::profiler
