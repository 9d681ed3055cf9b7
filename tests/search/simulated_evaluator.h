// A deterministic stand-in for the GPU evaluator, for tests of the search on a CPU: each
// variant's time comes from a cost function (or from markers in its source), and markers make
// a candidate fail to compile, compute the wrong result or crash. It records what it was asked
// (compiles in flight at once, which evaluator ran what) so tests can check the engine's
// parallelism. Compiled "libraries" live in one registry shared by every instance, as files on
// one host are: a variant compiled through one GPU's evaluator runs on another's.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "profiler/evaluate/evaluator.h"

namespace kb::testing {

// What a simulated variant does. Markers in the source set the fields of the default cost:
//   SIM_COMPILE_ERROR, SIM_WRONG, SIM_CRASH, SIM_TIME=<microseconds>; SIM_REFUSED: refused before
//   compiling, as the candidate source policy or a compile limit does (with a failure_reason)
struct SimBehaviour {
  double time_us = 100;
  bool compile_error = false;
  bool wrong = false;
  bool crash = false;
};

using SimCost = std::function<SimBehaviour(const Variant&)>;

// The default cost: markers only (100 us without SIM_TIME).
SimBehaviour markers_cost(const Variant& variant);

// The value of -D<name>=... in the variant, or nullopt.
std::optional<std::string> define_value(const Variant& variant, const std::string& name);

class SimulatedEvaluator : public Evaluator {
 public:
  explicit SimulatedEvaluator(SimCost cost = markers_cost, int device_index = 0);

  DeviceInfo device() override;
  CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant) override;
  EvalResult evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                      const EvalOptions& options) override;

  double compile_delay_s = 0;
  double evaluate_delay_s = 0;
  double min_speedup = 1.05;
  // A screening (EvalOptions::screening) reports this relative noise for each of its two
  // timings and times off by `screen_time_scale` (a short timing is not the full one), so tests
  // can tell which numbers came from which.
  double screen_noise = 0.01;
  double screen_time_scale = 1.0;
  double screen_run_s = 0.1;  // what a screening reports as its run time
  double full_run_s = 1.0;    // what a full evaluation (and the original's measurement) reports
  // The first candidate's full evaluation waited this long for its turn on the GPU (another job of
  // the process had it): its run time and its "waiting for the GPU" phase include it, and `spend`
  // is told it too (the wait is wall time).
  double first_full_wait_s = 0;
  // When set, told the run time of every evaluation as it is reported: a test's clock advances by
  // it (SearchRequest::clock), so minutes of GPU work are simulated in no time.
  std::function<void(double seconds)> spend;

  int screenings() const { return screenings_; }
  int full_evaluations() const { return evaluations_ - screenings_; }
  // The sources of the variants that got a full evaluation (not a screening), in order.
  std::vector<std::string> fully_evaluated_sources() const;

  int compiles() const { return compiles_; }
  int evaluations() const { return evaluations_; }
  int max_concurrent_compiles() const { return max_concurrent_; }
  // Counts-only runs (EvalOptions::verify = false) that counted the original too.
  int counts_only_runs_of_the_original() const { return counts_only_of_original_; }
  // The median error target the last full evaluation was given (EvalOptions::max_error).
  double last_full_max_error() const { return last_full_max_error_; }

 private:
  EvalResult screen(const SimBehaviour& base, const SimBehaviour& candidate);
  void add_counters(EvalResult& r, double speedup, bool count_original = true) const;

  SimCost cost_;
  int device_index_;
  std::atomic<int> compiles_{0};
  std::atomic<int> evaluations_{0};
  std::atomic<int> screenings_{0};
  std::atomic<int> counts_only_of_original_{0};
  std::atomic<double> last_full_max_error_{-1};
  mutable std::mutex full_mutex_;
  bool waited_once_ = false;  // first_full_wait_s was spent (guarded by full_mutex_)
  std::vector<std::string> full_sources_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_concurrent_{0};
};

}  // namespace kb::testing
