// kernelbot's side of a judge's session (kernelbot-harness --session, judge_session.h): one
// sandbox running one judge for the jobs of one kernel's original on one GPU, so that a job
// starts one process (the candidate's) instead of a sandbox, a judge and two servers.
//
// Each job's candidate library is copied, before the job is sent, into a directory of the
// session's that the sandbox sees read-only (the sandbox was set up before the library existed,
// and a copy is all the candidate's process can reach of the compile cache); kernelbot removes
// it after the job. The judge's working directory, the one the candidate may write, is emptied
// by the judge after every job, once every process the candidate started is gone.
//
// The judge's replies are sealed: the session's first frame is a key (random, per session) the
// judge reads before any server exists; every reply carries the job's sequence number and an
// HMAC of its text. A reply that does not verify, or answers another job, was not the judge's:
// the job is rejected as a forgery and the session ends.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "core/harness_job.h"
#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include "profiler/sandbox/sandboxed_service.h"

namespace kb::profiler {

class JudgeClient {
 public:
  // Starts `harness --session <dir>` sandboxed (limits.sandbox) for jobs like `job`: its device,
  // kernel and original. `dir` is created, and removed with the session.
  JudgeClient(const std::string& harness, const HarnessJob& job, const std::filesystem::path& dir,
              const HarnessLimits& limits);
  ~JudgeClient();

  // Whether the session is alive and its judge can take `job` (same device, kernel and original).
  bool serves(const HarnessJob& job) const;
  bool alive() const { return session_ && session_->alive(); }

  // Runs `job`, waiting up to `timeout_s`: the same HarnessRun a one-job judge gives (its exit
  // status as the reply says, the stderr written during the job), to be classified the same way.
  HarnessRun run(const HarnessJob& job, double timeout_s);

 private:
  std::string key_;
  std::string seal_key_;
  std::filesystem::path dir_, libraries_;
  std::unique_ptr<SandboxedService> session_;
  GpuConfinement gpu_;  // jobs are sent with their device numbered as the sandbox sees it
  uint64_t jobs_ = 0;
};

// The key a session is kept by: device, kernel and original library.
std::string session_key(const HarnessJob& job);

}  // namespace kb::profiler
