// Tokens and dollars spent on a model, shared by every request of one search so the hard
// budget ([search].max_tokens, max_cost_usd) holds across threads: once spent, no new request.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "core/errors.h"
#include "search/types/proposer.h"

namespace kb::search {

// A request was refused because the token or money budget is spent.
struct BudgetExhausted : Error {
  using Error::Error;
};

// Thread-safe token and cost accounting with the hard limits.
class TokenLedger {
 public:
  // `max_tokens` and `max_cost_usd` of 0 mean no limit; prices are per million tokens.
  TokenLedger(int64_t max_tokens, double max_cost_usd, double usd_per_million_prompt,
              double usd_per_million_completion);
  static std::shared_ptr<TokenLedger> from_config(const config::Config& config);

  // Throws BudgetExhausted when nothing is left; else the most completion tokens a reply may
  // use so the token budget is not overrun (`wanted`, or fewer).
  int64_t admit(int64_t wanted) const;
  void record(int64_t prompt_tokens, int64_t completion_tokens);
  // Tokens a failed request may have cost (no usage came back: a timeout, a 5xx, a reply cut off),
  // counted and priced like the others; not an answered request.
  void record_estimate(int64_t prompt_tokens, int64_t completion_tokens);
  TokenUsage usage() const;

 private:
  // Adds the tokens and what they cost to the usage; the caller holds mutex_.
  void add_tokens(int64_t prompt_tokens, int64_t completion_tokens);

  int64_t max_tokens_;
  double max_cost_usd_;
  double prompt_price_, completion_price_;
  mutable std::mutex mutex_;
  TokenUsage usage_;
};

}  // namespace kb::search
