// The search's budgets: candidates compiled, wall time, and (through the proposer's usage)
// tokens and money. Checked between steps; a step under way is allowed to finish.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "config/config.h"
#include "search/proposer.h"

namespace kb::search {

// The budgets of one search and what has been spent of them.
class SearchBudget {
 public:
  explicit SearchBudget(const config::SearchConfig& config);

  // Takes one candidate slot; false when the candidate or time budget is spent. Thread-safe.
  bool reserve_candidate();
  int64_t candidates_used() const { return used_; }
  int64_t candidates_left() const;
  double elapsed_s() const;
  bool out_of_time() const { return elapsed_s() >= max_wall_time_s_; }

  // The first budget that is spent, as a stop reason ("budget: candidates (200)"), else "".
  std::string exhausted(const TokenUsage& usage) const;

 private:
  std::chrono::steady_clock::time_point start_;
  int64_t max_candidates_;
  double max_wall_time_s_;
  int64_t max_tokens_;
  double max_cost_usd_;
  std::atomic<int64_t> used_{0};
};

}  // namespace kb::search
