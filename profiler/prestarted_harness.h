// A judge started ahead of its job. A job starts a sandbox (bubblewrap) and three processes (the
// judge, the original's server, the candidate's server), each loading the CUDA and CUPTI
// libraries; a search that knows another candidate follows starts the next judge while the GPU
// measures the current one, so the next job begins with its processes up (issue #13).
//
// The judge runs `kernelbot-harness ... --await-job --device N`: it reads its sealing key from
// stdin, starts both servers, then waits for a second line on stdin before it reads
// <dir>/job.json. Nothing touches the GPU before that line (CUDA contexts created beside a running
// job held up that job's own driver calls), and no variant code is loaded before it: the servers
// get their job, and with it the library to load, from the judge. Its sandbox sees the whole
// compile cache (read-only: every variant's library lies under it) instead of the two libraries'
// entries, since they are not known yet.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <string>

#include "profiler/harness_process.h"

namespace kb::profiler {

class PrestartedHarness {
 public:
  // Starts the judge in `dir` (created) for jobs of kernel `kernel` on `device` whose libraries
  // lie under `library_root`. `limits.timeout_s` still bounds the job itself: the sandbox's wall
  // time is that plus `max_wait_s`, the longest it may wait for a job (can_run says no after).
  PrestartedHarness(const std::string& harness, const std::filesystem::path& dir, const std::string& kernel, int device,
                    const std::filesystem::path& library_root, const HarnessLimits& limits, double max_wait_s);
  // An unused judge gets end of file on stdin and exits; its directory is removed.
  ~PrestartedHarness();
  PrestartedHarness(const PrestartedHarness&) = delete;
  PrestartedHarness& operator=(const PrestartedHarness&) = delete;

  // Whether it can take `job`: the same kernel and device, both libraries under the library
  // root, the same timeout, not yet used, still waiting and not waiting too long.
  bool can_run(const HarnessJob& job, double timeout_s) const;

  // Writes <dir>/job.json, tells the judge to go and waits for its result. nullopt when the judge
  // was gone before it took the job (it loaded no variant: the caller runs the job afresh).
  std::optional<HarnessRun> run(const HarnessJob& job);

  const std::filesystem::path& dir() const { return dir_; }

 private:
  bool still_waiting() const;

  std::filesystem::path dir_;
  std::string kernel_;
  int device_;
  std::filesystem::path library_root_;
  double timeout_s_;
  double max_wait_s_;
  std::string key_;
  int stdin_[2] = {-1, -1};  // [0] ours, [1] the judge's stdin
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool> cancel_{false};
  std::future<SandboxResult> process_;
  bool used_ = false;
  bool keep_dir_ = false;
};

}  // namespace kb::profiler
