// The contract between the bot and the harness (`kernelbot-harness`, a child process):
// the bot evaluates a [[kernel]] spec on every size set and writes this job as JSON; the harness
// dlopens the compiled variants, does the GPU work, and writes an EvalResult as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/arg_types.h"
#include "core/measurement_defaults.h"

namespace kb {

// One launcher parameter with its expressions already evaluated for every size set.
struct HarnessArg {
  std::string name;
  ArgRole role = ArgRole::input;
  std::optional<DType> dtype;       // none for a stream (the JSON's "")
  std::vector<int64_t> counts;      // per size set: elements, for buffers
  std::vector<std::string> values;  // per size set: literal value for size/scalar; "" = random scalar
  std::string distribution;         // "" = the job's distributions
  double rtol = 0, atol = 0;        // for outputs
  // For outputs: how the allowed error scales. "" or "plain": atol + rtol*|r|. "abs_inputs":
  // atol + rtol*max(|r|, |s|), s the original's output on the absolute values of its float inputs.
  std::string error_scale;
  // Integer inputs with `range = [lo, hi]`: per size set the evaluated {lo, hi}; every fill draws
  // lo <= v < hi instead of a distribution (indices a gather must not read out of bounds with).
  std::vector<std::vector<int64_t>> ranges;
};

// What the judge is asked to do; the JSON spells each as its name here.
enum class JobMode {
  verify_and_time,  // verify the candidate against the baseline, then time both interleaved
  verify,           // verification only
  time_baseline,    // time the baseline alone (its profile)
  metrics,          // CUPTI range-profiler metrics of each library given (a separate run: replay changes timing)
};
const char* to_string(JobMode mode);
// verify_and_time and verify judge a candidate; the other modes measure the libraries alone.
constexpr bool mode_compares_candidate(JobMode mode) {
  return mode == JobMode::verify_and_time || mode == JobMode::verify;
}

struct HarnessJob {
  JobMode mode = JobMode::verify_and_time;
  std::string kernel;
  std::string baseline_library;   // shared library exporting kb_launch
  std::string candidate_library;  // empty for time_baseline / metrics of the baseline only
  std::vector<std::string> size_labels;
  std::vector<HarnessArg> args;
  std::vector<double> flops;  // per size set, 0 = unknown
  std::vector<double> bytes;  // per size set: bytes moved (inputs read once, outputs written once)
  int64_t trials = kDefaultTrials;
  std::vector<std::string> distributions = default_distributions();
  uint64_t seed = 1;
  bool strict = false;  // extra-strict verification (more trials, tighter checks)
  HarnessBench bench;
  int device = 0;
  double copy_bandwidth_gbps = 0;  // measured device ceilings, for the roofline floor
  double fp32_tflops = 0;
  double min_speedup = kDefaultMinSpeedup;  // [bench].min_speedup: the geometric-mean ratio a win must reach
  int metrics_size = -1;                    // size set index the metrics mode profiles; -1 = the largest (most bytes)
  // The metrics mode with a candidate counts the original too; false: the candidate alone (the
  // caller has the original's counters from an earlier metrics job at the same size set).
  bool metrics_of_original = true;
  // The run is under compute-sanitizer, which holds the process's only CUPTI subscription
  // (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): verify without CUPTI activity tracing.
  // The side-stream checks were made by the normal run before the bot asks for this one.
  bool under_sanitizer = false;
  // A screening (search/engine/screening.h) asks for less than the full measurement: only the first
  // `timed_sizes` size sets are timed (0 = all), and verification trial t at size s draws from
  // distributions[(t + s + distribution_start) % n], so one trial per size can start the cycle
  // at the harshest distributions.
  int64_t timed_sizes = 0;
  int64_t distribution_start = 0;
  // The judge's wall-clock cross-check after each timed size (judge_timing.h). A screening skips
  // it: it never accepts, and a contender's full measurement makes the check before any verdict.
  bool wall_clock_check = true;
  // The last `verify_only_sizes` size sets are generalization sizes (sizes nobody configured,
  // drawn per job: harness_job_builder.h): verified once each in a pass of their own, never
  // timed, profiled or shown in tables. The other size sets are the configured ones.
  int64_t verify_only_sizes = 0;
};

// Every shared library the bot builds for a variant exports this symbol: it unpacks `args`
// (one pointer per launcher parameter: a device pointer for buffers, a pointer to the host
// value for scalars and sizes, a pointer to the cudaStream_t for streams) and calls the
// launcher. Returns 0.
inline constexpr const char* kEntrySymbol = "kb_launch";

// Roles, dtypes and modes travel as their names (core/arg_type_names.h); a name the reader does
// not know throws nlohmann::json::other_error naming the field ("job field args ('y').dtype: ...").
void to_json(nlohmann::json& j, const JobMode& mode);
void from_json(const nlohmann::json& j, JobMode& mode);
void to_json(nlohmann::json& j, const HarnessArg& arg);
void from_json(const nlohmann::json& j, HarnessArg& arg);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HarnessBench, warmup_runs, min_time_s, min_samples, max_samples,
                                                max_noise, timeout_s, flush_l2, graph_below_us, max_clock_sag,
                                                max_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HarnessJob, mode, kernel, baseline_library, candidate_library,
                                                size_labels, args, flops, bytes, trials, distributions, seed, strict,
                                                bench, device, copy_bandwidth_gbps, fp32_tflops, min_speedup,
                                                metrics_size, under_sanitizer, timed_sizes, distribution_start,
                                                wall_clock_check, verify_only_sizes, metrics_of_original)

}  // namespace kb
