// The boundary between the search and the GPU: compile a variant, then verify and time a
// candidate against the original. The real implementation runs each candidate in a sandboxed
// child process on a GPU; tests of search/ and bot/ use a simulated one, so they run on a CPU.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "core/gpu_arch.h"
#include "core/result_types.h"
#include "core/variant.h"

namespace kb {

struct EvalOptions {
  bool time = true;              // false: verify only
  bool collect_metrics = false;  // CUPTI metrics in a separate, untimed run
  bool sanitize = false;  // compute-sanitizer's four tools at the smallest and largest size set (sanitizer_pass.h)
  // A screening (search/engine/screening.h): one verification trial per size set, harshest inputs
  // first, and a short timing at the main size only. A candidate that passes comes back
  // `pending` with its screened speedup and timings, never accepted: only a full evaluation
  // accepts. Wrong results, crashes and hangs come back with the full path's verdicts.
  // sanitize and collect_metrics are ignored (they belong to the full evaluation).
  bool screening = false;
  // false: neither verified nor timed, for a variant a search verified already: only the runs
  // asked for beside it (collect_metrics). The verdict is then not_faster when they ran and
  // infra_error when they failed; it says nothing of the variant's correctness.
  bool verify = true;
  // With collect_metrics and verify = false: false counts the candidate alone, for a caller that
  // has the original's counters from its own measurement at the same size set (the search's
  // start); the result's baseline_metrics are then left as they were.
  bool count_original = true;
  // The median's error target of a full evaluation's timing (HarnessBench::max_error); negative:
  // [bench].max_error. The search passes Config::search_max_error.
  double max_error = -1;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // The GPU this evaluator measures on (name, SMs, measured bandwidth...).
  virtual DeviceInfo device() = 0;

  // Builds one variant; safe to call from several threads at once.
  virtual CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant) = 0;

  // The architecture compile() builds for ([project].cuda_arch, else this GPU's own).
  virtual GpuArch compile_arch() {
    const DeviceInfo d = device();
    return GpuArch{d.cc_major * 10 + d.cc_minor, 0};
  }
  // Builds one variant for another of the project's target architectures, as `build` says
  // (profiler/evaluate/archs/arch_plan.h). One that cannot (this default) answers with a machine
  // failure, so the architecture is reported as not checked, never as passed.
  virtual CompiledVariant compile_for_arch(const config::KernelSpec& spec, const Variant& variant,
                                           const ArchBuild& build) {
    (void)spec;
    (void)variant;
    CompiledVariant none;
    none.machine_failure = true;
    none.log = "this evaluator builds for its own architecture only, not for " + build.arch.sm();
    return none;
  }

  // Verifies `candidate` against `baseline` on fresh random inputs and, if correct, times both
  // interleaved (or screens it: see EvalOptions::screening). Never throws for a candidate's fault: crashes, hangs and wrong results are verdicts.
  virtual EvalResult evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline,
                              const CompiledVariant& candidate, const EvalOptions& options) = 0;

  // The original measured on its own, for the search (SearchResult::baseline_profile): its
  // timings at every size set (SizeTiming::baseline) and hardware metrics, verdict not_faster
  // when it ran, else the failure's. This default judges the original against itself;
  // GpuEvaluator times it alone (no verification against itself: each candidate's evaluation
  // runs the original again anyway), which for a slow kernel is a fraction of the time.
  virtual EvalResult measure_original(const config::KernelSpec& spec, const CompiledVariant& original) {
    EvalOptions options;
    options.time = true;
    options.collect_metrics = true;
    return evaluate(spec, original, original, options);
  }

  // It will not be used for a while (a re-verification done, the next kernel's search to come):
  // let go of what it holds on the GPU between jobs (the judge's session and its contexts).
  virtual void release() {}
};

}  // namespace kb
