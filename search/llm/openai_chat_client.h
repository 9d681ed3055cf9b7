// A client of the OpenAI-compatible chat-completions API (OpenAI, vLLM, SGLang, Ollama,
// llama.cpp server): POST {base_url}/chat/completions with a bearer key from the environment.
// Retries 429, 5xx, transport errors and malformed replies with exponential backoff that
// honours Retry-After; counts tokens from `usage` against a hard budget.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>

#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/token_ledger.h"

namespace kb::search {

// Timing knobs of the retry loop (tests shrink them).
struct RetryPolicy {
  double base_delay_s = 1.0;
  double max_delay_s = 60.0;
  double max_server_wait_s = 600;  // a Retry-After beyond this is not waited out: the request fails
};

// The HTTP ChatBackend: one endpoint, one key, retries and the shared token ledger.
class OpenAiChatClient : public ChatBackend {
 public:
  // Throws std::runtime_error naming the variable when [llm].api_key_env is set but the
  // environment has no such variable (api_key_env = "" sends no key, for local servers).
  OpenAiChatClient(config::LlmConfig llm, std::shared_ptr<TokenLedger> ledger, RetryPolicy policy = {});

  ChatReply complete(const ChatRequest& request) override;
  TokenUsage usage() const override { return ledger_->usage(); }
  std::string describe() const override;
  int64_t attempts() const;  // HTTP requests sent, retries included

 private:
  config::LlmConfig llm_;
  std::string api_key_;
  std::shared_ptr<TokenLedger> ledger_;
  RetryPolicy policy_;
  std::counting_semaphore<64> in_flight_{8};  // at most 8 concurrent requests to one server
  mutable std::mutex mutex_;
  int64_t attempts_ = 0;
  uint64_t jitter_state_ = 0x9e3779b97f4a7c15ull;
  double next_jitter();
};

}  // namespace kb::search
