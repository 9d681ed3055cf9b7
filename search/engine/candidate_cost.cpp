#include "search/engine/candidate_cost.h"

#include <algorithm>

#include "profiler/evaluate/jobs/gpu_turns.h"

namespace kb::search {
namespace {

// Calls of each variant beyond the trials: the determinism call, state independence (2), special
// values (1-2), alignment (up to 3) and the per-thread stream call, at most sizes.
constexpr double kPassCalls = 6;

double phase(const EvalResult& r, const char* name) {
  const auto it = r.phase_s.find(name);
  return it == r.phase_s.end() ? 0 : it->second;
}

// The verification's calls of both variants: each size set's call (the original's medians) per
// trial and per pass.
double verification_guess(const EvalResult& original, int64_t trials) {
  double one_call_each_size_s = 0;
  for (const auto& t : original.timings) one_call_each_size_s += t.baseline.median_us * 1e-6;
  return 2 * (static_cast<double>(std::max<int64_t>(1, trials)) + kPassCalls) * one_call_each_size_s;
}

}  // namespace

double gpu_wait_s(const EvalResult& job) { return phase(job, profiler::kWaitingForTheGpu); }

double own_seconds(const EvalResult& job) { return std::max(0.0, job.run_s - gpu_wait_s(job)); }

void CandidateCost::record_screening(double seconds) {
  std::lock_guard lock(mutex_);
  longest_screening_s_ = std::max(longest_screening_s_, seconds);
}

void CandidateCost::record_full(double seconds) {
  std::lock_guard lock(mutex_);
  longest_full_s_ = std::max(longest_full_s_, seconds);
}

double CandidateCost::full_s() const {
  std::lock_guard lock(mutex_);
  return longest_full_s_ > 0 ? longest_full_s_ : first_full_s_;
}

double CandidateCost::screening_s() const {
  std::lock_guard lock(mutex_);
  if (longest_screening_s_ > 0) return longest_screening_s_;
  return 0.5 * (longest_full_s_ > 0 ? longest_full_s_ : first_full_s_);
}

double CandidateCost::least_s() const { return std::min(screening_s(), full_s()); }

double first_full_evaluation_guess(const EvalResult& original, int64_t trials) {
  const double timing_s = original.phase_s.count("timing") ? phase(original, "timing") : own_seconds(original);
  return 2 * timing_s + verification_guess(original, trials) + phase(original, "start");
}

double winner_counters_guess(const EvalResult& original) {
  const double variants = original.baseline_metrics.status == "ok" ? 1 : 2;
  return variants * phase(original, "metrics") + phase(original, "start");
}

}  // namespace kb::search
