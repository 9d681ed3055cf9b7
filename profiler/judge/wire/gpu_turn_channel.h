// The judge's side of its turn on the GPU, when kernelbot hands it one to ask for (harness_main:
// --gpu-turn-fd). kernelbot gives every job it sends to a GPU a turn there (a timing runs alone,
// profiler/evaluate/jobs/gpu_turns.h). A job under compute-sanitizer spends most of its seconds
// before any of its GPU work: the tool attaches to the judge and to the candidate's server, and
// both make their CUDA contexts. Taking its turn only once that is done, the job leaves the GPU to
// another job's timing meanwhile, as a spare server's start does (spare_servers.h).
//
// One socket: the judge sends one byte and waits for one byte back (asked_turn.h is kernelbot's
// side). It never reaches a variant server (each server keeps only its own socket), so only the
// judge can ask, and no server can take the answer.
#pragma once

namespace kb::judge {

class GpuTurnChannel {
 public:
  // Takes the descriptor (closed on exec: no process the judge starts has it).
  explicit GpuTurnChannel(int fd);
  ~GpuTurnChannel();
  GpuTurnChannel(const GpuTurnChannel&) = delete;
  GpuTurnChannel& operator=(const GpuTurnChannel&) = delete;

  // Asks for the turn and waits up to `timeout_s` for it; the turn lasts until the judge ends.
  // A second call returns at once. Throws Error when the descriptor is not a socket, when
  // kernelbot closed its end, or when no answer came in time.
  void wait_for_turn(double timeout_s);

 private:
  int fd_;
  bool granted_ = false;
};

}  // namespace kb::judge
