#include "profiler/judge/session/judge_session.h"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "common/clock.h"
#include "common/frame_io.h"
#include "common/sealed_text.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/session/judged_job.h"
#include "profiler/judge/session/session_sweep.h"
#include "profiler/judge/session/spare_servers.h"
#include "profiler/judge/wire/served_job.h"
#include "profiler/judge/wire/variant_process.h"

namespace kb::judge {
namespace {

constexpr double kRenewTimeoutS = 60;
constexpr int kJobFd = 3, kReplyFd = 4;
// Servers started ahead of their jobs (spare_servers.h): one for the next candidate, one for an
// original that could not be kept (another kernel's, or after a metrics job).
constexpr size_t kSpareServers = 2;

// What must match for the original's server of one job to serve the next: its device, its
// library and its launcher (the stream it was given belongs to the launcher's arguments).
std::string original_identity(const DecodedJob& job) {
  const DecodedArg* stream = stream_arg(job);
  return std::to_string(job.raw.device) + "\n" + job.raw.kernel + "\n" + job.raw.baseline_library + "\n" +
         (stream ? stream->name : std::string());
}

// Clears what the job's candidate may have left (session_sweep.h). False, with `problem`, when
// something stays: the session then ends, and its sandbox with everything in it.
bool sweep(const std::vector<pid_t>& kept, const SessionOptions& options, std::string& problem) {
  if (kill_stray_children(kept) < 0) {
    problem = "processes started during the job kept coming back";
    return false;
  }
  if (!empty_directory(options.dir, problem)) return false;
  if (options.private_tmp) {
    for (const char* shared : {"/tmp", "/dev/shm"}) {
      std::error_code ec;
      if (std::filesystem::is_directory(shared, ec) && !empty_directory(shared, problem)) return false;
    }
    remove_sysv_ipc_objects();
  }
  clear_user_keyrings();  // keyrings outlive the processes that filled them
  return true;
}

// Whether the job's text asks for CUPTI metrics (parsed again: judge_job owns the parsed job).
bool metrics_job(const std::string& text) {
  try {
    return nlohmann::json::parse(text).value("mode", JobMode::verify_and_time) == JobMode::metrics;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int run_session(const SessionOptions& options) {
  install_crash_guard();
  // The channel to kernelbot: descriptors 3 (jobs) and 4 (replies), moved where only this process
  // holds them (close-on-exec; the servers also close everything past their socket). Not stdin
  // and stdout: bubblewrap's pid 1 keeps those, and any process of the sandbox can open them
  // through /proc/1/fd. stdin becomes /dev/null, and what any library prints on stdout goes to
  // stderr (untrusted text for kernelbot, as a candidate's prints are).
  const int in = ::fcntl(kJobFd, F_DUPFD_CLOEXEC, 10);
  const int out = ::fcntl(kReplyFd, F_DUPFD_CLOEXEC, 10);
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0 || out < 0 || devnull < 0 || ::dup2(devnull, STDIN_FILENO) < 0 ||
      ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "kb-harness: --session: no channel to kernelbot on descriptors 3 and 4\n");
    return kExitUsage;
  }
  ::close(kJobFd);
  ::close(kReplyFd);
  ::close(devnull);
  // The first frame is the key every reply is sealed with, read before any server exists.
  std::string key;
  if (!read_frame(in, key, 256) || key.size() < 32) {
    std::fprintf(stderr, "kb-harness: --session: the first frame must be the reply key\n");
    return kExitUsage;
  }
  // Every process started under the judge comes back to it when its parent dies, however it
  // detached: the sweep after each job finds them all.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    std::fprintf(stderr, "kb-harness: --session: cannot become a child subreaper\n");
    return kExitHarnessError;
  }
  std::unique_ptr<VariantProcess> original;
  std::string original_key;
  // The judge's own settings as the jobs will find them: after the CUDA driver's start-up (which
  // creates no context), before any server exists.
  int devices = 0;
  (void)cudaGetDeviceCount(&devices);
  const std::optional<ProcessSettings> judge_settings = process_settings(0);
  // The first job's spares are made for device 0 (the one a sandbox confined to one GPU sees);
  // a job for another device ends them and starts its own.
  SpareServers spares(kSpareServers, options.verbose);
  if (devices > 0) spares.refill(0);
  for (uint64_t seq = 0;; ++seq) {
    std::string text;
    if (!read_frame(in, text, kMaxJobBytes)) return kExitOk;  // kernelbot is done (or gone)
    const auto start = std::chrono::steady_clock::now();
    JobProcesses processes;
    std::string identity;
    int job_device = -1;  // the job's device, once it was read
    JudgedJob judged = judge_job(text, "the session's job", processes, [&](const DecodedJob& job, JobProcesses& p) {
      if (job.raw.under_sanitizer) throw HarnessError("a session does not run jobs under compute-sanitizer");
      identity = original_identity(job);
      job_device = job.raw.device;
      p.device = job.raw.device;
      p.verbose = options.verbose;
      if (original && identity == original_key &&
          original->renew_job(served_job_text(job.raw, job.raw.baseline_library), kRenewTimeoutS)) {
        p.baseline = std::move(original);
      } else {
        original.reset();
        p.baseline = spares.take(Who::baseline, job.raw.device);
      }
      if (!job.raw.candidate_library.empty()) p.candidate = spares.take(Who::candidate, job.raw.device);
    });
    processes.candidate.reset();  // asked to quit, then reaped: no candidate code outlives its job
    original.reset();
    // A metrics job leaves CUPTI's profiler state in the original's process, which later jobs
    // would time beside a fresh candidate: the next job gets a fresh original.
    if (judged.exit_code == kExitOk && processes.baseline && !metrics_job(text)) {
      original = std::move(processes.baseline);
      original_key = identity;
    }
    processes = {};
    judged.result.run_s = seconds_since(start);
    std::string problem;
    std::vector<pid_t> kept = spares.pids();
    if (original) kept.push_back(original->pid());
    bool swept = sweep(kept, options, problem);
    // The candidate's processes ran as this user: they could renice, re-pin or re-limit the judge
    // and the kept original, and so every later job. A changed original is replaced; a changed
    // judge ends the session (kernelbot starts a fresh one).
    const auto now = process_settings(0);
    if (swept && (!now || now != judge_settings)) {
      swept = false;
      problem = "the judge's priority, CPUs or resource limits were changed during the job";
    }
    if (original && process_settings(original->pid()) != now) original.reset();
    spares.check(now);
    nlohmann::json reply{{"seq", seq}, {"exit_code", judged.exit_code}};
    if (judged.has_result) reply["result"] = judged.result;
    const bool ends = !swept || judged.exit_code == kExitHarnessError || judged.exit_code == kExitUsage;
    if (ends) reply["session_ended"] = swept ? "the judge failed" : problem;
    if (judged.has_result && judged.exit_code == kExitOk)
      spdlog::info("{}: {}", to_string(judged.result.verdict), judged.result.reason);
    // Text a candidate influenced may hold invalid UTF-8: replaced, never a reason to fail.
    const std::string reply_text = reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!write_frame(out, sealed_envelope(key, reply_text).dump()) || ends)
      return swept ? judged.exit_code : kExitHarnessError;
    // While kernelbot compiles or prepares the next job: the spares it will take.
    if (job_device >= 0) spares.refill(job_device);
  }
}

}  // namespace kb::judge
