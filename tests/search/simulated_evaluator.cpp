#include "tests/search/simulated_evaluator.h"

#include <chrono>
#include <regex>
#include <thread>

#include "search/archive/content_hash.h"

namespace kb::testing {
namespace {

struct LibraryRegistry {
  std::mutex mutex;
  std::map<std::string, Variant> libraries;
};

LibraryRegistry& registry() {
  static LibraryRegistry r;
  return r;
}

// The verification part of a simulated result: the candidate's crash or wrong output as the
// harness reports it (`detail` ends the wrong-output reason), else passed.
EvalResult verification(const SimBehaviour& c, int64_t trials, double run_s, const std::string& detail) {
  EvalResult r;
  r.verification.trials = trials;
  r.run_s = run_s;
  // As a harness job reports where its time went (EvalResult::phase_s).
  r.phase_s = {{"start", 0.2 * run_s}, {"verification", 0.3 * run_s}, {"timing", 0.5 * run_s}};
  r.timing_part_s = {{"samples: timed calls", 0.4 * run_s}, {"samples: output checks", 0.1 * run_s}};
  if (c.crash) {
    r.verdict = Verdict::crashed;
    r.reason = "the candidate crashed: an illegal memory access was encountered";
  } else if (c.wrong) {
    r.verdict = Verdict::wrong_result;
    r.reason = "output y differs from the original at 12 of 1048576 elements" + detail;
  } else {
    r.verification.passed = true;
  }
  return r;
}

// One timing at the main size.
SizeTiming main_size_timing(double baseline_us, double candidate_us, int64_t samples, double noise) {
  SizeTiming t;
  t.size_label = "n=1048576";
  t.baseline.median_us = baseline_us;
  t.candidate.median_us = candidate_us;
  t.speedup = baseline_us / candidate_us;
  t.baseline.samples = t.candidate.samples = samples;
  t.baseline.noise = t.candidate.noise = noise;
  return t;
}

}  // namespace

SimBehaviour markers_cost(const Variant& v) {
  SimBehaviour b;
  b.compile_error = v.source.find("SIM_COMPILE_ERROR") != std::string::npos;
  b.wrong = v.source.find("SIM_WRONG") != std::string::npos;
  b.crash = v.source.find("SIM_CRASH") != std::string::npos;
  std::smatch m;
  static const std::regex time_re(R"(SIM_TIME=([0-9.]+))");
  if (std::regex_search(v.source, m, time_re)) b.time_us = std::stod(m[1]);
  return b;
}

std::optional<std::string> define_value(const Variant& variant, const std::string& name) {
  for (const auto& d : variant.defines)
    if (d.rfind(name + "=", 0) == 0) return d.substr(name.size() + 1);
  return std::nullopt;
}

SimulatedEvaluator::SimulatedEvaluator(SimCost cost, int device_index)
    : cost_(std::move(cost)), device_index_(device_index) {}

DeviceInfo SimulatedEvaluator::device() {
  DeviceInfo d;
  d.index = device_index_;
  d.name = "Simulated GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  d.runtime_version = "13.0";
  d.copy_bandwidth_gbps = 3000;
  return d;
}

CompiledVariant SimulatedEvaluator::compile(const config::KernelSpec&, const Variant& variant) {
  int now = ++in_flight_;
  for (int seen = max_concurrent_.load(); now > seen && !max_concurrent_.compare_exchange_weak(seen, now);) {
  }
  ++compiles_;
  if (compile_delay_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(compile_delay_s));
  --in_flight_;
  CompiledVariant c;
  c.cache_key = search::variant_hash(variant);
  c.compile_s = compile_delay_s;
  if (variant.source.find("SIM_REFUSED") != std::string::npos) {
    c.ok = false;
    c.log = "error: refused by kernelbot's candidate source policy before compiling: line 2: `getenv` (environment)\n";
    c.failure_reason = "refused by the candidate source policy before compiling: line 2: `getenv` (environment)";
    c.compile_s = 0;
    return c;
  }
  if (cost_(variant).compile_error) {
    c.ok = false;
    c.log = "candidate.cu(3): error: identifier \"undefined_thing\" is undefined\n1 error detected";
    return c;
  }
  c.ok = true;
  c.library_path = "sim://" + c.cache_key;
  c.compiler_report.registers_per_thread = 16;
  std::lock_guard<std::mutex> lock(registry().mutex);
  c.from_cache = registry().libraries.count(c.library_path) > 0;
  registry().libraries[c.library_path] = variant;
  return c;
}

// The counters' run: occupancy that grows with the speedup, a third of a full evaluation's time
// (half that for the candidate alone).
void SimulatedEvaluator::add_counters(EvalResult& r, double speedup, bool count_original) const {
  r.phase_s["metrics"] = (count_original ? 0.3 : 0.15) * full_run_s;
  if (count_original) {
    r.baseline_metrics.status = "ok";
    r.baseline_metrics.values["achieved_occupancy_pct"] = 40;
  }
  r.candidate_metrics.status = "ok";
  r.candidate_metrics.values["achieved_occupancy_pct"] = 40 * speedup;
}

EvalResult SimulatedEvaluator::evaluate(const config::KernelSpec&, const CompiledVariant& baseline,
                                        const CompiledVariant& candidate, const EvalOptions& options) {
  ++evaluations_;
  if (evaluate_delay_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(evaluate_delay_s));
  Variant base, cand;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    base = registry().libraries.at(baseline.library_path);
    cand = registry().libraries.at(candidate.library_path);
  }
  SimBehaviour b = cost_(base), c = cost_(cand);
  if (!options.verify && !options.screening) {
    // Counters only, as the GPU evaluator's run of them: a third of a full evaluation.
    if (spend) spend((options.count_original ? 0.3 : 0.15) * full_run_s);
    EvalResult r;
    r.device = device();
    r.verdict = Verdict::not_faster;
    r.reason = "counted only";
    if (options.count_original) ++counts_only_of_original_;
    add_counters(r, b.time_us / c.time_us, options.count_original);
    return r;
  }
  if (spend) spend(options.screening ? screen_run_s : full_run_s);
  if (options.screening) {
    ++screenings_;
    return screen(b, c);
  }
  double waited_s = 0;
  {
    std::lock_guard<std::mutex> lock(full_mutex_);
    if (baseline.library_path != candidate.library_path && !waited_once_) {
      waited_s = first_full_wait_s;  // the first candidate's, not the original's own measurement
      waited_once_ = true;
    }
    full_sources_.push_back(cand.source);
  }
  if (spend && waited_s > 0) spend(waited_s);
  last_full_max_error_ = options.max_error;
  EvalResult r = verification(c, 5, full_run_s, "");
  if (waited_s > 0) {
    r.run_s += waited_s;
    r.phase_s["waiting for the GPU"] = waited_s;
  }
  r.device = device();
  if (!r.verification.passed) return r;
  SizeTiming t = main_size_timing(b.time_us, c.time_us, 200, 0.002);
  t.floor_us = 10;
  t.baseline_pct_of_floor = 10 / b.time_us * 100;
  t.candidate_pct_of_floor = 10 / c.time_us * 100;
  t.significant = t.speedup >= min_speedup;
  r.timings.push_back(t);
  r.speedup = t.speedup;
  r.verdict = t.speedup >= min_speedup ? Verdict::accepted : Verdict::not_faster;
  r.reason = r.verdict == Verdict::accepted ? "correct and faster" : "correct, not faster beyond noise";
  if (options.collect_metrics) add_counters(r, r.speedup);
  return r;
}

std::vector<std::string> SimulatedEvaluator::fully_evaluated_sources() const {
  std::lock_guard<std::mutex> lock(full_mutex_);
  return full_sources_;
}

// What GpuEvaluator returns for a screening: the failure verdicts, or pending with one short
// timing at the main size (one trial per size set).
EvalResult SimulatedEvaluator::screen(const SimBehaviour& b, const SimBehaviour& c) {
  EvalResult r = verification(c, 1, screen_run_s, " (trial 1 of 1, distribution offset)");
  r.device = device();
  if (!r.verification.passed) return r;
  SizeTiming t = main_size_timing(b.time_us, c.time_us * screen_time_scale, 30, screen_noise);
  r.timings.push_back(t);
  r.speedup = t.speedup;
  r.verdict = Verdict::pending;
  r.reason = "passed the screening";
  return r;
}

}  // namespace kb::testing
