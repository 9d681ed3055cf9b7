#include "search/engine/search_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/errors.h"

namespace kb::search {

SecondsClock steady_seconds() {
  return [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
}

SearchBudget::SearchBudget(const config::SearchConfig& config, SecondsClock clock)
    : clock_(std::move(clock)),
      start_(clock_()),
      max_candidates_(config.max_candidates),
      max_wall_time_s_(config.max_wall_time_s),
      max_tokens_(config.max_tokens),
      max_cost_usd_(config.max_cost_usd) {
  // Never "no time at all" (or no candidate): a search that could not try anything is a mistake.
  if (max_candidates_ <= 0)
    throw UsageError(fmt::format("search.max_candidates must be greater than zero, not {}", max_candidates_));
  if (!(max_wall_time_s_ > 0))
    throw UsageError(fmt::format("search.max_wall_time_s must be greater than zero, not {:g}", max_wall_time_s_));
}

bool SearchBudget::reserve_candidate() {
  if (out_of_time()) return false;
  int64_t now = used_.load();
  while (now < max_candidates_)
    if (used_.compare_exchange_weak(now, now + 1)) return true;
  return false;
}

int64_t SearchBudget::candidates_left() const { return std::max<int64_t>(0, max_candidates_ - used_.load()); }

double SearchBudget::elapsed_s() const { return clock_() - start_; }

std::string SearchBudget::exhausted(const TokenUsage& usage, double next_candidate_s) const {
  if (used_.load() >= max_candidates_) return fmt::format("budget: candidates ({})", max_candidates_);
  if (out_of_time()) return fmt::format("budget: wall time ({:g} s)", max_wall_time_s_);
  if (!time_for(next_candidate_s))
    return fmt::format("budget: wall time ({:g} s): {:.0f} s left, less than one candidate takes (~{:.0f} s)",
                       max_wall_time_s_, time_left_s(), next_candidate_s);
  // 0 means no limit, for tokens as for money.
  if (max_tokens_ > 0 && usage.total() >= max_tokens_) return fmt::format("budget: tokens ({})", max_tokens_);
  if (max_cost_usd_ > 0 && usage.cost_usd >= max_cost_usd_) return fmt::format("budget: cost (${:.2f})", max_cost_usd_);
  return "";
}

}  // namespace kb::search
