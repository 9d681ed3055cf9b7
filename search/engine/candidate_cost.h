// What one candidate's GPU work costs in this search, for the wall-time budget: the engine
// dispatches a candidate only while the time left covers it (search_budget.h). Before any
// candidate has run, the cost of a full evaluation is guessed from the original's measurement
// (first_full_evaluation_guess); afterwards it is the longest screening and full evaluation seen
// so far, which is cautious on purpose: a budget is overrun only by a candidate that costs more
// than every earlier one, and by no more than the difference.
#pragma once

#include <cstdint>
#include <mutex>

#include "core/result_types.h"

namespace kb::search {

class CandidateCost {
 public:
  explicit CandidateCost(double first_full_s) : first_full_s_(first_full_s) {}

  void record_screening(double seconds);
  void record_full(double seconds);
  // The longest seen; before any, the guess (a screening: half a full evaluation's guess).
  double screening_s() const;
  double full_s() const;
  // The least a candidate can cost (screened out, or fully evaluated without a screening).
  double least_s() const;

 private:
  double first_full_s_;
  mutable std::mutex mutex_;
  double longest_screening_s_ = 0, longest_full_s_ = 0;
};

// The seconds a job waited for its turn on the GPU (EvalResult::phase_s "waiting for the GPU":
// another job of this process, such as the previous kernel's re-verification, had the GPU;
// profiler/evaluate/jobs/gpu_turns.h); 0 when it did not wait.
double gpu_wait_s(const EvalResult& job);

// What a job cost this search: its run time less its wait for the GPU. A wait says nothing about
// what the next candidate will cost, so neither the budget nor the screening's account counts it
// as the candidate's.
double own_seconds(const EvalResult& job);

// A full evaluation's seconds guessed from the original's measurement alone (`original`, timed
// on its own: EvalResult::phase_s "timing" and "start"): both variants are timed, so twice its
// timing; each call of every size set (its medians) for each variant in `trials` verification
// trials, the determinism call and about five calls of the later passes; the caller's-contract
// passes' 31 calls of each variant (30 at the smallest size set, one at the largest); and a job's start.
double first_full_evaluation_guess(const EvalResult& original, int64_t trials);

// The winner's counters after the search (search/engine/winner_metrics.h: a metrics run of the
// winner, nothing verified again), guessed the same way: the original's metrics phase and a job's
// start; twice the phase when the original's measurement has no counters (both are counted then).
double winner_counters_guess(const EvalResult& original);

}  // namespace kb::search
