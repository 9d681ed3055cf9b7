// The real Evaluator: compiles variants with nvcc into shared libraries (cached by a hash of
// source and flags) and runs each evaluation in a sandboxed `kernelbot-harness` child process.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "config/config.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/evaluate/evaluator.h"
#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/evaluate/jobs/judge_client.h"
#include "profiler/evaluate/jobs/library_load_check.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"

namespace kb::profiler {

// [verify].sandbox as a SandboxKind. "process" is logged as a warning (once); "namespaces" throws
// kb::Error naming the package and the sysctl when bubblewrap cannot run here.
SandboxKind candidate_sandbox(const config::Config& config);

// One GPU's evaluator. Besides the Evaluator interface it profiles the original alone
// (`kernelbot profile`: time_baseline and metrics jobs).
class GpuEvaluator : public Evaluator {
 public:
  // `queried` is the device as query_devices() reported it.
  GpuEvaluator(const config::Config& config, const DeviceInfo& queried);

  DeviceInfo device() override;
  CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant) override;
  GpuArch compile_arch() override;
  CompiledVariant compile_for_arch(const config::KernelSpec& spec, const Variant& variant,
                                   const ArchBuild& build) override;
  EvalResult evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                      const EvalOptions& options) override;
  void release() override;
  // profile_baseline with metrics; a run without a fault is not_faster ("the original, timed on
  // its own"), as the original judged against itself would be.
  EvalResult measure_original(const config::KernelSpec& spec, const CompiledVariant& original) override;

  // Times the original alone on every size set and, when asked, collects its metrics in a
  // separate run. The result's `timings[i].baseline` hold the numbers; verdict stays pending
  // unless something failed (then crashed/timed_out/infra_error with the reason).
  EvalResult profile_baseline(const config::KernelSpec& spec, const CompiledVariant& baseline, bool collect_metrics);

  const std::filesystem::path& work_dir() const { return work_dir_; }

  // Whether `compiled` loads as the harness will load it (library_load_check.h); needs no GPU.
  LoadCheck check_load(const config::KernelSpec& spec, const CompiledVariant& compiled);
  // The -arch the variants are compiled for.
  std::string arch() const { return arch_; }

 private:
  HarnessJob job_for(const config::KernelSpec& spec, JobMode mode);
  // Runs one job: in the judge's session when it can (judge_client.h), else in its own
  // directory under <work_dir>/jobs (kept only when the run failed).
  HarnessRun run_raw(const HarnessJob& job, const std::string& tag, const std::vector<std::string>& wrapper = {},
                     double timeout_scale = 1);
  EvalResult run(const HarnessJob& job, const std::string& tag);
  // The counters' run; false (statuses saying why) when it failed. `count_original` false: the
  // candidate's alone (a candidate is needed), result.baseline_metrics untouched.
  bool collect_metrics(const config::KernelSpec& spec, const CompiledVariant& baseline,
                       const CompiledVariant* candidate, EvalResult& result, bool count_original = true);
  // compute-sanitizer's tools over the candidate (and, where it found something, the original),
  // sanitizer_pass.h: the findings held against the candidate set the verdict.
  void sanitize(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                EvalResult& result);
  void strict_check(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                    EvalResult& result);

  const config::Config& config_;
  DeviceInfo queried_;
  std::filesystem::path work_dir_;
  std::string harness_;
  SandboxKind sandbox_;
  std::vector<std::filesystem::path> hidden_;  // what no candidate process may see
  GpuConfinement gpu_;                         // the one GPU its jobs' processes see
  std::unique_ptr<VariantCompiler> compiler_;
  std::string arch_;
  std::mutex device_mutex_;
  std::optional<DeviceInfo> device_;
  // The judge's session ([verify].persistent_judge): kept for the kernel and original of the
  // jobs it last ran, replaced when another comes.
  std::mutex session_mutex_;
  std::unique_ptr<JudgeClient> session_;
};

// `device` is the CUDA device index the child processes use (one evaluator per GPU). Throws
// NoDeviceError when there is no such GPU.
std::unique_ptr<Evaluator> make_gpu_evaluator(const config::Config& config, int device);
std::unique_ptr<GpuEvaluator> make_gpu_evaluator_for_profile(const config::Config& config, int device);
// For compiling and loading without a GPU (`kernelbot check --compile`): the first GPU's
// architecture when there is one, else [project].cuda_arch, else sm_90.
std::unique_ptr<GpuEvaluator> make_gpu_evaluator_for_check(const config::Config& config);

}  // namespace kb::profiler
