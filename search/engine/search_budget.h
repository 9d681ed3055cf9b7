// The search's budgets: candidates compiled, wall time, and (through the proposer's usage)
// tokens and money. The wall time is held before work starts, not only between steps: a
// candidate is compiled and dispatched to a GPU only while the time left covers what one costs
// (search/engine/candidate_cost.h), so a search of a slow kernel ends near its budget instead of a
// candidate's length past it. What `0` means for each key is the config's (config_keys.cpp):
// candidates and wall time must be positive, tokens and money 0 = no limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "config/config.h"
#include "search/types/proposer.h"

namespace kb::search {

// Monotonic seconds; the steady clock unless a test injects its own.
using SecondsClock = std::function<double()>;
SecondsClock steady_seconds();

// The budgets of one search and what has been spent of them.
class SearchBudget {
 public:
  // Throws kb::UsageError when max_candidates or max_wall_time_s is not positive (the
  // config loader refuses those; a caller that builds a config in code gets the same rule).
  explicit SearchBudget(const config::SearchConfig& config, SecondsClock clock = steady_seconds());

  // Takes one candidate slot; false when the candidate or time budget is spent. Thread-safe.
  bool reserve_candidate();
  int64_t candidates_used() const { return used_; }
  int64_t candidates_left() const;
  double elapsed_s() const;
  double time_left_s() const { return max_wall_time_s_ - elapsed_s(); }
  bool out_of_time() const { return elapsed_s() >= max_wall_time_s_; }
  // Whether work expected to take `seconds` still ends within the wall-time budget.
  bool time_for(double seconds) const { return time_left_s() >= seconds; }
  double max_wall_time_s() const { return max_wall_time_s_; }

  // The first budget that is spent, as a stop reason ("budget: candidates (200)"), else "".
  // `next_candidate_s`: what one more candidate is expected to cost; less time left than that is
  // a spent wall-time budget too.
  std::string exhausted(const TokenUsage& usage, double next_candidate_s = 0) const;

 private:
  SecondsClock clock_;
  double start_;
  int64_t max_candidates_;
  double max_wall_time_s_;
  int64_t max_tokens_;
  double max_cost_usd_;
  std::atomic<int64_t> used_{0};
};

}  // namespace kb::search
