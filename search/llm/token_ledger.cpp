#include "search/llm/token_ledger.h"

#include <fmt/format.h>

#include <algorithm>

namespace kb::search {

TokenLedger::TokenLedger(int64_t max_tokens, double max_cost_usd, double usd_per_million_prompt,
                         double usd_per_million_completion)
    : max_tokens_(max_tokens),
      max_cost_usd_(max_cost_usd),
      prompt_price_(usd_per_million_prompt),
      completion_price_(usd_per_million_completion) {}

std::shared_ptr<TokenLedger> TokenLedger::from_config(const config::Config& config) {
  return std::make_shared<TokenLedger>(config.search.max_tokens, config.search.max_cost_usd,
                                       config.llm.usd_per_million_prompt_tokens,
                                       config.llm.usd_per_million_completion_tokens);
}

int64_t TokenLedger::admit(int64_t wanted) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (max_tokens_ > 0 && usage_.total() >= max_tokens_)
    throw BudgetExhausted(
        fmt::format("token budget spent: {} of [search].max_tokens = {}", usage_.total(), max_tokens_));
  if (max_cost_usd_ > 0 && usage_.cost_usd >= max_cost_usd_)
    throw BudgetExhausted(
        fmt::format("money budget spent: ${:.4f} of [search].max_cost_usd = ${:.2f}", usage_.cost_usd, max_cost_usd_));
  if (max_tokens_ > 0) return std::max<int64_t>(1, std::min(wanted, max_tokens_ - usage_.total()));
  return wanted;
}

void TokenLedger::add_tokens(int64_t prompt_tokens, int64_t completion_tokens) {
  usage_.prompt_tokens += prompt_tokens;
  usage_.completion_tokens += completion_tokens;
  usage_.cost_usd += (static_cast<double>(prompt_tokens) * prompt_price_ +
                      static_cast<double>(completion_tokens) * completion_price_) /
                     1e6;
}

void TokenLedger::record(int64_t prompt_tokens, int64_t completion_tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  add_tokens(prompt_tokens, completion_tokens);
  ++usage_.requests;
}

void TokenLedger::record_estimate(int64_t prompt_tokens, int64_t completion_tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  add_tokens(prompt_tokens, completion_tokens);
  usage_.estimated_tokens += prompt_tokens + completion_tokens;
}

TokenUsage TokenLedger::usage() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return usage_;
}

}  // namespace kb::search
