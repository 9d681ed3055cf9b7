#include "search/search_budget.h"

#include <fmt/format.h>

namespace kb::search {

SearchBudget::SearchBudget(const config::SearchConfig& config)
    : start_(std::chrono::steady_clock::now()),
      max_candidates_(config.max_candidates),
      max_wall_time_s_(config.max_wall_time_s),
      max_tokens_(config.max_tokens),
      max_cost_usd_(config.max_cost_usd) {}

bool SearchBudget::reserve_candidate() {
  if (out_of_time()) return false;
  int64_t now = used_.load();
  while (now < max_candidates_)
    if (used_.compare_exchange_weak(now, now + 1)) return true;
  return false;
}

int64_t SearchBudget::candidates_left() const { return std::max<int64_t>(0, max_candidates_ - used_.load()); }

double SearchBudget::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string SearchBudget::exhausted(const TokenUsage& usage) const {
  if (used_.load() >= max_candidates_) return fmt::format("budget: candidates ({})", max_candidates_);
  if (out_of_time()) return fmt::format("budget: wall time ({:g} s)", max_wall_time_s_);
  // 0 means no limit, as for max_cost_usd.
  if (max_tokens_ > 0 && usage.total() >= max_tokens_) return fmt::format("budget: tokens ({})", max_tokens_);
  if (max_cost_usd_ > 0 && usage.cost_usd >= max_cost_usd_) return fmt::format("budget: cost (${:.2f})", max_cost_usd_);
  return "";
}

}  // namespace kb::search
