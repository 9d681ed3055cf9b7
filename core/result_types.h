// The measured facts kernelbot reports: device, timings, verification, hardware metrics and the
// verdict on a candidate. Defined once here (the lowest layer) and serialized to JSON, so the
// search, the terminal table, --json and the PR body all print the same numbers.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb {

// The GPU and software a measurement was taken on.
struct DeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string uuid;
  std::string pci_bus_id;  // "0000:1b:00.0", as the driver's /proc/driver/nvidia/gpus/ names it
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  std::string driver_version;      // "580.159.04"
  std::string runtime_version;     // "13.0"
  double copy_bandwidth_gbps = 0;  // measured device-to-device copy, bytes read + written
  double fp32_tflops = 0;          // measured FFMA rate
};

// A timing distribution of one variant at one size, in microseconds.
struct TimingStats {
  double median_us = 0, q1_us = 0, q3_us = 0, min_us = 0, max_us = 0, mean_us = 0;
  double noise = 0;  // relative standard deviation (stdev / mean)
  int64_t samples = 0;
  int64_t dropped_samples = 0;      // dropped because the SM clock sagged
  int64_t launches_per_sample = 1;  // >1 when timed as a CUDA graph of launches
  bool l2_flushed = true;
  std::string stop_reason;   // "noise target", "noise stable", "timeout", "max samples"
  double sm_clock_mhz = 0;   // median SM clock over the kept samples (NVML), 0 when unknown
  double cupti_span_us = 0;  // median GPU busy time of one call under CUPTI activity (its activities' union)
  std::string notes;         // findings: work escaping the timed region, clock or blocking-kernel caveats
};

// One call timed alone (one launch per sample) whose event-timed median is more than 5% under the
// GPU time CUPTI traced for it: work the caller's stream may never have waited for. The judge
// notes it in `notes` for people; kernelbot's verdict (evaluate/verdict/evaluation_outcome) decides
// on the measured numbers, relative to the original's own span, never on the note's words.
inline bool escaped_timed_region(const TimingStats& t) {
  return t.launches_per_sample == 1 && t.cupti_span_us > 0 && t.median_us < 0.95 * t.cupti_span_us;
}

// Baseline and candidate timed interleaved at one size set.
struct SizeTiming {
  std::string size_label;  // "n=1048576"
  TimingStats baseline;
  TimingStats candidate;
  double speedup = 0;                // baseline median / candidate median
  bool significant = false;          // the ratio is beyond the combined noise
  double floor_us = 0;               // roofline floor from the spec's bytes and FLOPs, 0 when unknown
  double baseline_pct_of_floor = 0;  // floor / median * 100
  double candidate_pct_of_floor = 0;
  double bytes_moved = 0;
  double flops = 0;
  // Checks around the timed samples, made by the judge (a process that loads no variant code):
  int64_t checked_samples = 0;   // candidate samples whose outputs the judge compared with the original's
  int64_t wall_clock_calls = 0;  // back-to-back calls per batch of the wall-clock cross-check
  double baseline_wall_us = 0;   // per call, the judge's clock, fresh inputs, outputs checked
  double candidate_wall_us = 0;
  // The speedup and its significance are the judge's clock's (baseline_wall_us over
  // candidate_wall_us), not the timed samples': the clock saw more per call than the samples
  // claim, and every GPU activity of the candidate's traced call ran on the caller's stream, so
  // the difference is the launcher's host time (an allocation, occupancy queries, argument packing)
  // that a caller pays too. The samples stay as measured.
  bool wall_clock_rules = false;
};

// Worst error of one output buffer over every trial.
struct OutputError {
  std::string name;
  std::string dtype;
  double max_abs_error = 0;
  double max_rel_error = 0;
  double rtol = 0, atol = 0;
  int64_t mismatches = 0;
  int64_t elements = 0;
  double max_reference = 0;  // the largest finite |original's value| over every trial
};

// What became of one target architecture of the project (profiler/evaluate/arch_verification.h).
enum class ArchOutcome {
  verified,  // compiled for it and verified on the judge's GPU (the judge's own compile, or PTX through the JIT)
  compiled,  // compiled for it, not run: this GPU cannot run its code (a newer GPU, another's specific features)
  skipped,   // not held against the candidate: the original itself does not compile or run for it
  failed,    // the candidate does not compile for it, or fails its verification there
};
struct ArchCheck {
  std::string arch;  // "sm_80", as the project builds it
  ArchOutcome outcome = ArchOutcome::skipped;
  std::string how;     // "compute_80 PTX, run on this GPU through the driver's JIT compiler"
  std::string detail;  // why compiled only, why skipped, what failed; empty for a plain verification
};

// Evidence that a candidate computes what the original computes.
struct VerificationReport {
  bool passed = false;
  std::string failure;  // empty when passed; otherwise a reason a reviewer understands
  int64_t trials = 0;
  std::vector<std::string> sizes;
  std::vector<std::string> distributions;
  std::vector<uint64_t> seeds;
  std::vector<OutputError> outputs;
  double worst_abs_error = 0;
  double worst_rel_error = 0;
  bool strict_pass = false;      // the extra-strict pass for speedups over [verify].strict_speedup
  bool sanitized = false;        // compute-sanitizer ran
  std::string sanitizer_report;  // empty when no tool found anything
  // The compute-sanitizer tools that ran to their end ("memcheck (with leak check)", "initcheck"),
  // and the size sets they ran at, one call each: the smallest, then the largest configured.
  std::vector<std::string> sanitizer_tools;
  std::vector<std::string> sanitizer_sizes;
  bool deterministic_checked = false;      // each size's first trial ran twice on the same inputs
  bool original_nondeterministic = false;  // the original's own outputs varied between those calls
  // Checks that passed but prove little, e.g. an output whose reference never exceeds its atol
  // (any value near zero passes): for the reviewer and for whoever tunes the tolerances.
  std::vector<std::string> warnings;
  // Conditions a verification pass did not hold against the candidate because the original itself
  // fails under them, one human-readable line each: "generalization size n=7 (...): the original
  // fails ...", "alignment offset 4 bytes: the original faults (misaligned address)", "special
  // values at size n=1000: the original's output y holds no finite value (...)", "the per-thread
  // default stream as the stream argument, at size n=4096: ...".
  std::vector<std::string> skipped_checks;
  // The generalization sizes (not configured, drawn per job) the candidate was verified at.
  std::vector<std::string> generalization_sizes;
  // The verification passes after the main trials that ran and passed, one line each, in the
  // words a reviewer reads ("state independence at 3 sizes: ..."): the PR claims only these.
  std::vector<std::string> passes;
  // The project's target architectures, when they were checked (a file's `eval`, the PR's
  // re-verification; not the search's candidates), one entry each, and where the list came from
  // ("build/compile_commands.json, the entry of src/saxpy.cu") or why there is none.
  std::vector<ArchCheck> archs;
  std::string archs_source;
  // Seconds spent in the main trials ("main trials") and in each pass that ran, by its name: what
  // verification costs, for bench/search_throughput. Not evidence.
  std::map<std::string, double> pass_s;
};

// Hardware counters and compiler facts for one variant. Every value came from CUPTI, the driver
// or ptxas; `status` says why metrics are missing when they are.
struct KernelMetrics {
  std::string status = "not collected";  // "ok", "insufficient privileges: ...", ...
  std::map<std::string, double> values;  // "sm_throughput_pct", "dram_bytes_read", ...
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;
  int64_t spill_stores_bytes = 0;
  int64_t spill_loads_bytes = 0;
  int64_t stack_frame_bytes = 0;
  std::string kernel_name;
  int64_t dynamic_shared_bytes = 0;
  int64_t kernel_count = 0;  // kernels one launcher call ran (values aggregate over them)
  std::string size_label;    // the size set the values were measured at
};

enum class Verdict {
  pending,
  accepted,    // correct and faster beyond noise
  not_faster,  // correct, but not faster beyond noise
  compile_error,
  wrong_result,  // outputs differ, NaN, unwritten outputs, modified inputs, cached answers...
  crashed,       // illegal address, abort, signal
  timed_out,
  rejected,      // a rule of the harness: side-stream work, sanitizer errors, env access...
  infra_error,   // the evaluator itself failed (no GPU, tool missing): not the candidate's fault
  screened_out,  // passed a screening (search/engine/screening.h) but timed clearly slower than a confirmed
                 // candidate or the original there: never fully measured, never a seed or a winner
};
const char* to_string(Verdict v);
bool verdict_is_correct(Verdict v);  // accepted or not_faster

// What compute-sanitizer ran, as the terminal and the PR body say it: "memcheck (with leak check),
// racecheck, synccheck and initcheck, one call each at the smallest and the largest size set
// (n=1000003, n=16777216)"; only the tools when the sizes are not recorded, "" when neither is
// (a result written before they were).
std::string sanitizer_scope(const VerificationReport& v);

// The full outcome of evaluating a candidate against the original.
struct EvalResult {
  Verdict verdict = Verdict::pending;
  std::string reason;  // one sentence for humans
  VerificationReport verification;
  std::vector<SizeTiming> timings;
  double speedup = 0;  // geometric mean over size sets
  KernelMetrics baseline_metrics;
  KernelMetrics candidate_metrics;
  std::string compile_log;
  double compile_s = 0;
  double run_s = 0;
  DeviceInfo device;
  // Where the job's time went, in seconds per phase ("start", "verification", "timing",
  // "wall-clock check", "metrics" inside the judge; "sandbox" is the rest of the job as the
  // parent saw it: the sandbox, process start-up and reading the result).
  std::map<std::string, double> phase_s;
  // Inside the "timing" phase, seconds by part (the set-up before any sample, the probes, each
  // sample round's inputs, timed calls, clock reads and output checks): where a timing's time goes.
  std::map<std::string, double> timing_part_s;
};

// A compiled variant: a shared library exposing the generated entry point.
struct CompiledVariant {
  bool ok = false;
  std::string library_path;
  std::string log;        // compiler output (errors, ptxas -v report)
  std::string cache_key;  // hash of source + flags
  bool from_cache = false;
  double compile_s = 0;
  KernelMetrics compiler_report;  // registers, spills, stack from ptxas -v
  // The compiler did not finish on its own (timed out, killed, not started): the machine's
  // failure, not the variant's. In memory only (not in the cache's JSON): never stored.
  bool machine_failure = false;
  // When it failed before or around nvcc rather than in it (the candidate source policy refused
  // it, a compile limit ran out): the verdict's one-line reason. In memory only, as above.
  std::string failure_reason;
};

NLOHMANN_JSON_SERIALIZE_ENUM(ArchOutcome, {{ArchOutcome::verified, "verified"},
                                           {ArchOutcome::compiled, "compiled"},
                                           {ArchOutcome::skipped, "skipped"},
                                           {ArchOutcome::failed, "failed"}})
const char* to_string(ArchOutcome outcome);

// Where a job's time went, for a log line: "start 0.4 s, timing 1.0 s" (EvalResult::phase_s in
// its order, one decimal), without the phases shorter than `at_least_s`; "" when none is left.
std::string describe_phases(const std::map<std::string, double>& phase_s, double at_least_s = 0);

void to_json(nlohmann::json& j, const Verdict& v);
void from_json(const nlohmann::json& j, Verdict& v);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceInfo, index, name, uuid, pci_bus_id, cc_major, cc_minor, sm_count,
                                                l2_bytes, memory_bytes, driver_version, runtime_version,
                                                copy_bandwidth_gbps, fp32_tflops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingStats, median_us, q1_us, q3_us, min_us, max_us, mean_us, noise,
                                                samples, dropped_samples, launches_per_sample, l2_flushed, stop_reason,
                                                sm_clock_mhz, cupti_span_us, notes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SizeTiming, size_label, baseline, candidate, speedup, significant,
                                                floor_us, baseline_pct_of_floor, candidate_pct_of_floor, bytes_moved,
                                                flops, checked_samples, wall_clock_calls, baseline_wall_us,
                                                candidate_wall_us, wall_clock_rules)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OutputError, name, dtype, max_abs_error, max_rel_error, rtol, atol,
                                                mismatches, elements, max_reference)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ArchCheck, arch, outcome, how, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(VerificationReport, passed, failure, trials, sizes, distributions,
                                                seeds, outputs, worst_abs_error, worst_rel_error, strict_pass,
                                                sanitized, sanitizer_report, sanitizer_tools, sanitizer_sizes,
                                                deterministic_checked, original_nondeterministic, warnings,
                                                skipped_checks, generalization_sizes, passes, archs, archs_source,
                                                pass_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelMetrics, status, values, registers_per_thread,
                                                static_shared_bytes, local_bytes_per_thread, spill_stores_bytes,
                                                spill_loads_bytes, stack_frame_bytes, kernel_name, dynamic_shared_bytes,
                                                kernel_count, size_label)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EvalResult, verdict, reason, verification, timings, speedup,
                                                baseline_metrics, candidate_metrics, compile_log, compile_s, run_s,
                                                device, phase_s, timing_part_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CompiledVariant, ok, library_path, log, cache_key, from_cache,
                                                compile_s, compiler_report)

}  // namespace kb
