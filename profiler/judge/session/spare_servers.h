// A judge's session keeps a few variant servers started ahead of their jobs: each is a fresh
// `kernelbot-harness --serve` process that has made its CUDA context (variant_server.cpp does that
// before it reads its job) and loads no library until a job hands it one. A job takes a spare for
// its candidate, and for its original when the last one could not be kept, instead of starting a
// process and a context while the GPU waits. Each spare serves one job and ends with it, as a
// server started for the job would: nothing of a variant ever runs in a process that served
// another.
//
// Spares are started after a job's sweep, when no candidate's process is left, and they are
// waiting while the next job's candidate runs, as the kept original is. A candidate runs as the same
// user: it cannot read or write a spare's memory (servers are not dumpable, harness_main.cpp), but
// it can signal or re-limit one. So after each sweep a spare that ended or whose priority, CPUs or
// limits differ from the judge's is dropped, and a spare is woken (SIGCONT) and checked to be
// waiting when a job takes it; a job that finds none ready starts a fresh server, as before.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <vector>

#include "profiler/judge/session/session_sweep.h"
#include "profiler/judge/wire/variant_process.h"

namespace kb::judge {

class SpareServers {
 public:
  // Keeps up to `count` spares (0: none, every job starts its own servers).
  SpareServers(size_t count, bool verbose) : count_(count), verbose_(verbose) {}

  // A server for `who` on `device`: a spare waiting for its job when there is one, else a fresh
  // server. Spares for another device are ended.
  std::unique_ptr<VariantProcess> take(Who who, int device);

  // After a job's sweep: drops the spares that ended or whose settings are no longer `judge`'s.
  void check(const std::optional<ProcessSettings>& judge);

  // Starts spares for `device` until there are `count`.
  void refill(int device);

  // The spares' processes, which the sweep keeps.
  std::vector<pid_t> pids() const;
  size_t size() const { return spares_.size(); }

 private:
  size_t count_;
  bool verbose_;
  std::vector<std::unique_ptr<VariantProcess>> spares_;
};

}  // namespace kb::judge
