#include "profiler/judge/session/job_modes.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "profiler/judge/passes/verifier.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/timing/calibration.h"
#include "profiler/judge/timing/judge_timing.h"
#include "profiler/judge/timing/phase_times.h"
#include "profiler/judge/wire/served_job.h"

namespace kb::judge {
namespace {

// Loading a library (and its CUDA modules) can take a while on a busy machine, and so can
// destroying a context under compute-sanitizer (its leak report is made then).
constexpr double kStartTimeoutS = 300;

KernelMetrics metrics_of(const DecodedJob& job, VariantProcess& server, double timeout_s) {
  const size_t s = metrics_size_index(job);
  set_phase("hardware metrics at size " + job.raw.size_labels[s]);
  Request r;
  r.op = Op::local_metrics;
  r.size_index = static_cast<int32_t>(s);
  // Its own buffers' inputs (nobody compares its outputs): from a seed that is no verification's.
  r.seed = fresh_server_seed();
  r.distribution = static_cast<uint32_t>(job.distributions.front());
  const Reply reply = server.ask(r, timeout_s);
  expect_no_harness_error(reply, "collect metrics");
  KernelMetrics m;
  if (reply.status != Status::ok) {
    m.status = "not collected: the call failed (" + untrusted_note(reply) + ")";
    return m;
  }
  // Numbers from a process that ran the variant: parsed as data, strings bounded by the parent.
  try {
    m = nlohmann::json::parse(std::string(reply.note)).get<KernelMetrics>();
  } catch (const std::exception&) {
    m = KernelMetrics{};
    m.status = "not collected: the server's metrics were unreadable";
  }
  m.size_label = job.raw.size_labels[s];
  return m;
}

}  // namespace

JobProcesses start_job_processes(int device, bool baseline, bool candidate, bool verbose) {
  JobProcesses p;
  p.device = device;
  p.verbose = verbose;
  if (baseline) p.baseline = std::make_unique<VariantProcess>(Who::baseline, device, verbose);
  if (candidate) p.candidate = std::make_unique<VariantProcess>(Who::candidate, device, verbose);
  return p;
}

void run_job(const DecodedJob& job, JobProcesses& processes, EvalResult& result) {
  const auto& raw = job.raw;
  PhaseTimes phases(result.phase_s);
  phases.begin("start");
  // Under compute-sanitizer only the candidate runs (on buffers of its own): there is no original
  // to compare with, the sanitizer's findings are the result.
  const bool sanitizing = raw.under_sanitizer;
  if (sanitizing) processes.baseline.reset();
  if (raw.candidate_library.empty()) processes.candidate.reset();
  if (!sanitizing && !processes.baseline) throw HarnessError("no server was started for the original");
  if (!raw.candidate_library.empty() && !processes.candidate)
    throw HarnessError("no server was started for the candidate");
  VariantProcess* baseline = processes.baseline.get();
  VariantProcess* candidate = processes.candidate.get();
  // The servers create their CUDA contexts as soon as they have the job, while the judge creates
  // its own: the three start-ups overlap instead of queueing.
  // Each server is told only what it needs to serve its own library (served_job.h).
  if (baseline) baseline->give_job(served_job_text(raw, raw.baseline_library));
  if (candidate) candidate->give_job(served_job_text(raw, raw.candidate_library));
  result.device = describe_device(raw.device);  // "no CUDA device: ..." when there is none
  cuda_check(cudaSetDevice(raw.device), "selecting the CUDA device");
  cuda_check(cudaFree(nullptr), "creating the CUDA context");
  result.device.copy_bandwidth_gbps = raw.copy_bandwidth_gbps;
  result.device.fp32_tflops = raw.fp32_tflops;

  if (baseline) {
    set_phase("loading the original");
    if (!baseline->await_start(kStartTimeoutS)) throw HarnessError("the original's library: " + baseline->load_error());
  }
  if (candidate) {
    set_phase("loading the candidate");
    // Under the tools this wait is the server's start under the tool (the tool's attach, its
    // context) and the load, where its modules are instrumented: a phase of its own in the log.
    if (sanitizing) phases.begin("loading under the tool");
    if (!candidate->await_start(kStartTimeoutS)) {
      if (candidate->harness_failed()) throw HarnessError("the candidate's server: " + candidate->load_error());
      result.verdict = Verdict::compile_error;
      result.reason = "the candidate's library cannot be loaded: " + candidate->load_error();
      return;
    }
  }
  Servers servers;
  servers.baseline = baseline;
  servers.candidate = candidate;
  processes.memory_skips.clear();
  servers.memory_skips = &processes.memory_skips;
  servers.restart_original = [&job, &processes, &servers]() {
    processes.baseline.reset();  // ends the old server (dead or not) before its successor starts
    processes.baseline = std::make_unique<VariantProcess>(Who::baseline, processes.device, processes.verbose);
    processes.baseline->give_job(served_job_text(job.raw, job.raw.baseline_library));
    if (!processes.baseline->await_start(kStartTimeoutS))
      throw HarnessError("the original's library, loaded again: " + processes.baseline->load_error());
    servers.baseline = processes.baseline.get();
    return servers.baseline;
  };

  switch (raw.mode) {
    case JobMode::verify:
    case JobMode::verify_and_time: {
      if (!candidate) throw HarnessError(std::string("a ") + to_string(raw.mode) + " job without a candidate library");
      if (sanitizing) {
        candidate->destroy_context_at_quit(kStartTimeoutS);
        phases.begin(kCallsUnderTheTool);
        const VerificationOutcome v = run_for_sanitizer(job, servers);
        result.verdict = v.verdict;
        result.reason = v.verdict == Verdict::pending ? "ran under compute-sanitizer" : v.reason;
        return;
      }
      phases.begin("verification");
      const VerificationOutcome v = verify_candidate(job, servers, raw.strict, result.verification);
      if (v.verdict != Verdict::pending) {
        result.verdict = v.verdict;
        result.reason = v.reason;
        return;
      }
      if (raw.mode == JobMode::verify) {
        result.verdict = Verdict::pending;
        result.reason = std::string(raw.strict ? "strict " : "") + "verification passed";
        return;
      }
      phases.begin("timing");
      run_timing(job, servers, result, phases);
      break;
    }
    case JobMode::time_baseline:
      servers.candidate = nullptr;
      phases.begin("timing");
      run_timing(job, servers, result, phases);
      break;
    case JobMode::metrics: {
      phases.begin("metrics");
      const bool count_original = raw.metrics_of_original || !candidate;
      if (count_original) result.baseline_metrics = metrics_of(job, *baseline, servers.timeout_s);
      else result.baseline_metrics.status = "not counted in this job";
      if (candidate) result.candidate_metrics = metrics_of(job, *candidate, servers.timeout_s);
      result.verdict = Verdict::pending;
      result.reason = "hardware metrics: " +
                      (count_original ? result.baseline_metrics : result.candidate_metrics).status;
      break;
    }
  }
}

}  // namespace kb::judge
