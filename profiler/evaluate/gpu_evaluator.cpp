#include "profiler/evaluate/gpu_evaluator.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>

#include "common/clock.h"
#include "config/size_expression.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/jobs/generalization_sizes.h"
#include "profiler/evaluate/jobs/gpu_turns.h"
#include "profiler/evaluate/jobs/harness_job_builder.h"
#include "profiler/evaluate/jobs/machine_cache.h"
#include "profiler/evaluate/verdict/sanitizer_pass.h"

namespace kb::profiler {
namespace fs = std::filesystem;

namespace {

// Where the libraries link_libs names live: its -L directories and the directories of the
// libraries it names by path (a variant loads them from there at run time).
std::vector<fs::path> link_lib_dirs(const config::Config& config, const config::KernelSpec& spec) {
  std::vector<fs::path> dirs;
  for (const auto* libs : {&config.project.link_libs, &spec.link_libs})
    for (const auto& lib : *libs) {
      if (lib.starts_with("-L") && lib.size() > 2) dirs.push_back(config.resolve(lib.substr(2)));
      else if (lib.find('/') != std::string::npos) dirs.push_back(config.resolve(lib).parent_path());
    }
  return dirs;
}

// Where to look for the provider of an undefined symbol: link_libs' directories, the toolkit's lib64.
std::vector<fs::path> library_search_dirs(const config::Config& config, const config::KernelSpec& spec) {
  std::vector<fs::path> dirs = link_lib_dirs(config, spec);
  if (const std::string nvcc = find_nvcc(); !nvcc.empty()) {
    std::error_code ec;
    const fs::path toolkit = fs::canonical(nvcc, ec).parent_path().parent_path();
    if (!ec) dirs.push_back(toolkit / "lib64");
  }
  return dirs;
}

// Compiler facts fill what the run did not measure (ptxas knows registers and spills exactly).
void merge_compiler_report(KernelMetrics& m, const KernelMetrics& ptxas) {
  if (ptxas.status != "ok") return;
  if (m.registers_per_thread == 0) m.registers_per_thread = ptxas.registers_per_thread;
  if (m.static_shared_bytes == 0) m.static_shared_bytes = ptxas.static_shared_bytes;
  if (m.local_bytes_per_thread == 0) m.local_bytes_per_thread = ptxas.local_bytes_per_thread;
  m.spill_stores_bytes = ptxas.spill_stores_bytes;
  m.spill_loads_bytes = ptxas.spill_loads_bytes;
  m.stack_frame_bytes = ptxas.stack_frame_bytes;
  if (m.kernel_name.empty()) m.kernel_name = ptxas.kernel_name;
  if (m.status == "not collected") m.status = "compiler report only";
}

// A further job's time (a strict pass, metrics) counts in the evaluation's phases.
void add_phases(EvalResult& into, const EvalResult& from) {
  for (const auto& [phase, s] : from.phase_s) into.phase_s[phase] += s;
}

const DeviceInfo& pick_device(const std::vector<DeviceInfo>& devices, int index) {
  for (const auto& d : devices)
    if (d.index == index) return d;
  throw NoDeviceError("no CUDA device with index " + std::to_string(index) + " (this machine has " +
                      std::to_string(devices.size()) + ")");
}

// A screening never accepts: a candidate that was correct on it comes back pending, its speedup
// at the main size kept for the search to rank it; failures keep the full path's verdicts.
void mark_screened(EvalResult& r) {
  if (r.verdict != Verdict::accepted && r.verdict != Verdict::not_faster) return;
  r.reason = "passed the screening (1 trial per size set), " + format_speedup(r.speedup) + " at " +
             (r.timings.empty() ? std::string("the main size") : r.timings.front().size_label);
  r.verdict = Verdict::pending;
}

}  // namespace

SandboxKind candidate_sandbox(const config::Config& config) {
  if (config.verify.sandbox == "process") {
    static std::once_flag warned;
    std::call_once(warned, [] {
      spdlog::warn("[verify] sandbox = \"process\": candidates compile and run as plain child processes of this user, "
                   "with no file-system or network isolation; use \"namespaces\" wherever bubblewrap can run");
    });
    return SandboxKind::process;
  }
  if (std::string problem = namespace_sandbox_problem(); !problem.empty()) throw Error(problem);
  return SandboxKind::namespaces;
}

GpuEvaluator::GpuEvaluator(const config::Config& config, const DeviceInfo& queried)
    : config_(config), queried_(queried), work_dir_(fs::absolute(config.resolve(config.search.work_dir))) {
  harness_ = find_harness();
  sandbox_ = candidate_sandbox(config);
  gpu_ = confine_to(queried);
  spdlog::debug("GPU {}: its jobs' processes see {}", queried.index,
                !gpu_.active()             ? std::string("every GPU (KERNELBOT_SANDBOX_EVERY_GPU=1, or no UUID)")
                : gpu_.device_node.empty() ? gpu_.uuid + " (CUDA_VISIBLE_DEVICES; its device node is unknown)"
                                           : gpu_.uuid + " through " + gpu_.device_node);
  hidden_ = repository_secrets(fs::absolute(config.root.empty() ? fs::current_path() : config.root),
                               {work_dir_, fs::absolute(config.resolve(config.search.archive)).parent_path()});
  CompilerOptions options;
  options.sandbox = sandbox_;
  options.hidden = hidden_;
  options.work_dir = work_dir_;
  options.arch = resolve_cuda_arch(config.project.cuda_arch, queried.cc_major, queried.cc_minor);
  arch_ = options.arch;
  options.source_policy = config.verify.source_policy;
  options.timeout_s = config.verify.compile_timeout_s;
  options.max_memory_mb = std::llround(config.verify.compile_memory_gib * 1024);
  compiler_ = std::make_unique<VariantCompiler>(config, options);
}

DeviceInfo GpuEvaluator::device() {
  std::lock_guard lock(device_mutex_);
  if (!device_) {
    device_ = calibrated_device(queried_, device_cache_dir(work_dir_.parent_path()), [&] {
      const GpuTurns::Turn turn = gpu_turns(queried_.index).take(GpuUse::measured);  // it times copies
      return run_calibration(harness_, queried_.index, work_dir_ / "calibration",
                             {600, 0, sandbox_, hidden_, {}, gpu_});
    });
  }
  return *device_;
}

CompiledVariant GpuEvaluator::compile(const config::KernelSpec& spec, const Variant& variant) {
  return compiler_->compile(spec, variant);
}

GpuArch GpuEvaluator::compile_arch() {
  if (auto arch = parse_gpu_arch(arch_)) return *arch;
  return GpuArch{queried_.cc_major * 10 + queried_.cc_minor, 0};
}

CompiledVariant GpuEvaluator::compile_for_arch(const config::KernelSpec& spec, const Variant& variant,
                                               const ArchBuild& build) {
  return compiler_->compile_for(spec, variant, build.nvcc_flags());
}

HarnessJob GpuEvaluator::job_for(const config::KernelSpec& spec, JobMode mode) {
  HarnessJob job = make_harness_job(config_, spec);
  job.mode = mode;
  DeviceInfo d = device();
  job.device = d.index;
  job.copy_bandwidth_gbps = d.copy_bandwidth_gbps;
  job.fp32_tflops = d.fp32_tflops;
  return job;
}

HarnessRun GpuEvaluator::run_raw(const HarnessJob& job, const std::string& tag, const std::vector<std::string>& wrapper,
                                 double timeout_scale) {
  static std::atomic<int> counter{0};
  const fs::path dir = work_dir_ / "jobs" /
                       (job.kernel + "-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  const auto* spec = config_.find_kernel(job.kernel);
  HarnessLimits limits{config_.verify.timeout_s * timeout_scale,
                       config_.verify.max_host_memory_mb,
                       sandbox_,
                       hidden_,
                       spec ? link_lib_dirs(config_, *spec) : std::vector<fs::path>{},
                       gpu_};
  // Its turn on the GPU first: a timing runs alone there, whichever evaluator of this process
  // (the next kernel's search, the previous winner's re-verification) has other work for it.
  const GpuTurns::Turn turn = gpu_turns(queried_.index).take(gpu_use_of(job));
  if (turn.waited_s() >= 0.1)
    spdlog::debug("{} job for '{}' waited {:.1f} s for its turn on GPU {}", to_string(job.mode), job.kernel,
                  turn.waited_s(), queried_.index);
  // The session takes every job but compute-sanitizer's (it wraps the judge's process). After a
  // metrics job the judge starts the next job with a fresh original (CUPTI's profiler state would
  // stay in the kept one). Another thread's job on the same evaluator runs on its own, as before.
  if (config_.verify.persistent_judge && wrapper.empty()) {
    std::unique_lock lock(session_mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      if (!session_ || !session_->serves(job)) {
        session_.reset();
        const fs::path session_dir = work_dir_ / "jobs" /
                                     (job.kernel + "-session-" + std::to_string(getpid()) + "-" +
                                      std::to_string(counter++));
        session_ = std::make_unique<JudgeClient>(harness_, job, session_dir, limits);
      }
      HarnessRun r = session_->run(job, limits.timeout_s);
      r.waited_for_gpu_s = turn.waited_s();
      if (!session_->alive()) session_.reset();  // the next job starts a fresh one
      if (classify_harness_run(r, limits.max_memory_mb).verdict == Verdict::infra_error)
        spdlog::warn("{} job for '{}' failed in the judge's session: {}", to_string(job.mode), job.kernel,
                     r.result_error.empty() ? r.process.describe() : r.result_error);
      return r;
    }
  }
  HarnessRun r = run_harness_job(harness_, job, dir, limits, wrapper);
  r.waited_for_gpu_s = turn.waited_s();
  EvalResult verdict = classify_harness_run(r, limits.max_memory_mb);
  if (verdict.verdict == Verdict::infra_error && wrapper.empty()) {
    spdlog::warn("{} job for '{}' failed; its files are kept in {}", to_string(job.mode), job.kernel, dir.string());
  } else {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return r;
}

void GpuEvaluator::release() {
  std::lock_guard lock(session_mutex_);
  session_.reset();
}

EvalResult GpuEvaluator::run(const HarnessJob& job, const std::string& tag) {
  const HarnessRun r = run_raw(job, tag);
  EvalResult result = classify_harness_run(r, config_.verify.max_host_memory_mb);
  if (r.waited_for_gpu_s > 0) result.phase_s[kWaitingForTheGpu] += r.waited_for_gpu_s;
  return result;
}

EvalResult GpuEvaluator::evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                  const CompiledVariant& candidate, const EvalOptions& options) {
  auto start = std::chrono::steady_clock::now();
  EvalResult result;
  result.device = device();
  result.compile_log = candidate.log;
  result.compile_s = candidate.compile_s;
  if (!baseline.ok) {
    result.verdict = Verdict::infra_error;
    result.reason = "the original kernel did not compile; nothing to compare against";
    return result;
  }
  if (!candidate.ok) {
    result.verdict = Verdict::compile_error;
    result.reason = candidate.failure_reason.empty() ? "the candidate did not compile" : candidate.failure_reason;
    return result;
  }
  if (!options.verify && !options.screening) {
    // Counters of a variant the search verified: the verification job before them would add
    // nothing to them (they come from a run of their own, in fresh processes, as ever).
    if (options.collect_metrics && !collect_metrics(spec, baseline, &candidate, result, options.count_original)) {
      result.verdict = Verdict::infra_error;
      result.reason = result.candidate_metrics.status;
    } else {
      result.verdict = Verdict::not_faster;
      result.reason = "counted only: neither verified nor timed by this run";
    }
    merge_compiler_report(result.baseline_metrics, baseline.compiler_report);
    merge_compiler_report(result.candidate_metrics, candidate.compiler_report);
    result.run_s = seconds_since(start);
    return result;
  }
  HarnessJob job;
  try {
    job = job_for(spec, options.time || options.screening ? JobMode::verify_and_time : JobMode::verify);
    if (options.screening)
      make_screening_job(job, ScreeningBench{config_.search.screen_max_samples, config_.search.screen_min_time_s});
    else add_generalization_sizes(job, config_, spec);  // verification only; a screening never accepts
    if (!options.screening && options.max_error >= 0) job.bench.max_error = options.max_error;
  } catch (const config::ExpressionError& e) {
    result.verdict = Verdict::infra_error;
    result.reason = std::string("kernel '") + spec.name + "': " + e.what();
    return result;
  }
  job.baseline_library = baseline.library_path;
  job.candidate_library = candidate.library_path;

  EvalResult ran = run(job, options.screening ? "screen" : "eval");
  ran.device = result.device;
  ran.compile_log = result.compile_log;
  ran.compile_s = result.compile_s;
  result = std::move(ran);
  if (options.screening) {
    // The same rules as the full path (evidence of verification, work escaping the timing)...
    apply_accept_rule(result, config_.bench.min_speedup);
    // ...but never an acceptance.
    mark_screened(result);
    merge_compiler_report(result.candidate_metrics, candidate.compiler_report);
    result.run_s = seconds_since(start);
    return result;
  }
  if (options.time) apply_accept_rule(result, config_.bench.min_speedup);
  else apply_accept_rule(result, 0);  // verified only: not_faster "verified only, not timed" when correct

  if (result.verdict == Verdict::accepted && result.speedup > config_.verify.strict_speedup)
    strict_check(spec, baseline, candidate, result);
  if (options.sanitize && verdict_is_correct(result.verdict)) sanitize(spec, baseline, candidate, result);
  if (options.collect_metrics && result.verdict != Verdict::crashed && result.verdict != Verdict::timed_out &&
      result.verdict != Verdict::infra_error)
    collect_metrics(spec, baseline, &candidate, result);
  merge_compiler_report(result.baseline_metrics, baseline.compiler_report);
  merge_compiler_report(result.candidate_metrics, candidate.compiler_report);
  result.run_s = seconds_since(start);
  return result;
}

void GpuEvaluator::strict_check(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                const CompiledVariant& candidate, EvalResult& result) {
  const std::string claim = format_speedup(result.speedup);
  spdlog::info("'{}': a {} speedup is over [verify].strict_speedup = {}; verifying again, strictly", spec.name, claim,
               format_speedup(config_.verify.strict_speedup));
  HarnessJob job = job_for(spec, JobMode::verify);
  job.strict = true;
  try {
    add_generalization_sizes(job, config_, spec);  // drawn afresh: other sizes than the first pass's
  } catch (const config::ExpressionError& e) {
    spdlog::warn("'{}': no generalization sizes for the strict pass: {}", spec.name, e.what());
  }
  job.baseline_library = baseline.library_path;
  job.candidate_library = candidate.library_path;
  EvalResult strict = run(job, "strict");
  add_phases(result, strict);
  if (strict.verdict == Verdict::pending || verdict_is_correct(strict.verdict)) {
    if (strict.verification.passed) {
      result.verification.strict_pass = true;
      result.verification.seeds.insert(result.verification.seeds.end(), strict.verification.seeds.begin(),
                                       strict.verification.seeds.end());
      result.verification.trials += strict.verification.trials;
      return;
    }
  }
  result.verification.strict_pass = false;
  result.verdict = strict.verdict == Verdict::pending || verdict_is_correct(strict.verdict) ? Verdict::wrong_result
                                                                                            : strict.verdict;
  std::string why = strict.verification.failure.empty() ? strict.reason : strict.verification.failure;
  result.reason = "claimed a " + claim + " speedup, but the strict re-verification failed: " + why;
  if (!strict.verification.failure.empty()) result.verification.failure = strict.verification.failure;
  result.verification.passed = false;
}

void GpuEvaluator::sanitize(const config::KernelSpec& spec, const CompiledVariant& baseline,
                            const CompiledVariant& candidate, EvalResult& result) {
  const std::string tool_path = find_compute_sanitizer();
  if (tool_path.empty()) {
    result.verdict = Verdict::infra_error;
    result.reason = "--sanitize: compute-sanitizer not found (looked in $CUDA_HOME/bin, /usr/local/cuda/bin, PATH)";
    return;
  }
  // One job for both size sets: each tool's start-up (its injection, every module instrumented)
  // costs seconds, paid once per tool instead of once per size set.
  HarnessJob job = sanitizer_job(job_for(spec, JobMode::verify));
  job.baseline_library = baseline.library_path;
  const SanitizerRunner runner = [&](const SanitizerTool& tool, bool original, int64_t calls) {
    HarnessJob j = job;
    j.trials = calls;
    // The original runs where the candidate would, in the candidate's server: the same process.
    j.candidate_library = original ? baseline.library_path : candidate.library_path;
    // The tools slow kernels down 10-100x; the job is one or two calls per size set.
    const HarnessRun r = run_raw(j, "sanitize-" + tool.name + (original ? "-original" : ""),
                                 sanitizer_command(tool_path, tool), 10);
    // The judge's own phases under the tool, against the process's wall: what the tool costs
    // around the judge (its start, the instrumentation, the leak check) and what inside it.
    std::string inside;
    if (r.result) {
      const std::string phases = describe_phases(r.result->phase_s, 0.05);
      inside = fmt::format(" (the judge's {:.1f} s{}{})", r.result->run_s, phases.empty() ? "" : ": ", phases);
    }
    spdlog::info("{}: compute-sanitizer {} on the {} ({} call{} at each size set): {:.1f} s{}", spec.name, tool.name,
                 original ? "original" : "candidate", calls, calls == 1 ? "" : "s", r.process.wall_s, inside);
    return read_sanitizer_run(tool, r, config_.verify.max_host_memory_mb);
  };
  // The tools at once (each in its own process; run_raw is safe from several threads): the pass
  // costs about its longest tool instead of the sum of all four.
  const auto started = std::chrono::steady_clock::now();
  const SanitizerOutcome outcome = run_sanitizer_pass(runner, job.size_labels, config_.verify.sanitizer_jobs);
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.phase_s["compute-sanitizer"] += spent;
  result.run_s += spent;
  auto& v = result.verification;
  v.sanitized = true;
  v.sanitizer_tools = outcome.tools;
  v.sanitizer_sizes = job.size_labels;
  v.sanitizer_report = outcome.report;
  v.warnings.insert(v.warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
  v.skipped_checks.insert(v.skipped_checks.end(), outcome.skipped.begin(), outcome.skipped.end());
  if (outcome.verdict != Verdict::pending) {
    result.verdict = outcome.verdict;
    result.reason = outcome.reason;
  }
}

bool GpuEvaluator::collect_metrics(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                   const CompiledVariant* candidate, EvalResult& result, bool count_original) {
  count_original = count_original || !candidate;
  HarnessJob job = job_for(spec, JobMode::metrics);
  job.baseline_library = baseline.library_path;
  job.candidate_library = candidate ? candidate->library_path : "";
  job.metrics_of_original = count_original;
  EvalResult m = run(job, "metrics");
  add_phases(result, m);
  if (m.verdict == Verdict::pending || verdict_is_correct(m.verdict)) {
    if (count_original) result.baseline_metrics = m.baseline_metrics;
    if (candidate) result.candidate_metrics = m.candidate_metrics;
    return true;
  }
  // Metrics are evidence, not a verdict: a failed metrics run leaves the verdict alone.
  if (count_original) result.baseline_metrics.status = "metrics run failed: " + m.reason;
  if (candidate) result.candidate_metrics.status = "metrics run failed: " + m.reason;
  return false;
}

EvalResult GpuEvaluator::profile_baseline(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                          bool metrics) {
  auto start = std::chrono::steady_clock::now();
  EvalResult result;
  result.device = device();
  result.compile_log = baseline.log;
  result.compile_s = baseline.compile_s;
  if (!baseline.ok) {
    result.verdict = Verdict::compile_error;
    result.reason = "the kernel's source did not compile";
    return result;
  }
  HarnessJob job = job_for(spec, JobMode::time_baseline);
  job.baseline_library = baseline.library_path;
  EvalResult timed = run(job, "profile");
  timed.device = result.device;
  timed.compile_log = result.compile_log;
  timed.compile_s = result.compile_s;
  result = std::move(timed);
  if (metrics && (result.verdict == Verdict::pending || verdict_is_correct(result.verdict)))
    collect_metrics(spec, baseline, nullptr, result);
  merge_compiler_report(result.baseline_metrics, baseline.compiler_report);
  result.run_s = seconds_since(start);
  return result;
}

EvalResult GpuEvaluator::measure_original(const config::KernelSpec& spec, const CompiledVariant& original) {
  EvalResult r = profile_baseline(spec, original, true);
  if (r.verdict == Verdict::pending) {
    r.verdict = Verdict::not_faster;
    r.reason = "the original, timed on its own at " + std::to_string(r.timings.size()) + " size sets";
  }
  return r;
}

LoadCheck GpuEvaluator::check_load(const config::KernelSpec& spec, const CompiledVariant& compiled) {
  static std::atomic<int> counter{0};
  const fs::path dir = work_dir_ / "jobs" /
                       (spec.name + "-load-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  HarnessLimits limits{60, config_.verify.max_host_memory_mb, sandbox_, hidden_, link_lib_dirs(config_, spec), gpu_};
  LoadCheck check = check_library_loads(harness_, compiled.library_path, dir, limits,
                                        library_search_dirs(config_, spec));
  std::error_code ec;
  fs::remove_all(dir, ec);
  return check;
}

std::unique_ptr<GpuEvaluator> make_gpu_evaluator_for_profile(const config::Config& config, int device) {
  std::vector<DeviceInfo> devices = query_devices();  // throws NoDeviceError on a machine without a GPU
  return std::make_unique<GpuEvaluator>(config, pick_device(devices, device));
}

std::unique_ptr<GpuEvaluator> make_gpu_evaluator_for_check(const config::Config& config) {
  DeviceInfo queried;  // compute capability 0.0: resolve_cuda_arch falls back to the config, then sm_90
  try {
    queried = query_devices().front();
  } catch (const NoDeviceError&) {
    // No GPU is the normal case here.
  }
  return std::make_unique<GpuEvaluator>(config, queried);
}

std::unique_ptr<Evaluator> make_gpu_evaluator(const config::Config& config, int device) {
  return make_gpu_evaluator_for_profile(config, device);
}

}  // namespace kb::profiler
