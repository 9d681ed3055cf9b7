// A client of the OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI, gateways, vLLM,
// SGLang, Ollama, llama.cpp server): POST {base_url}/chat/completions with the key from the
// environment. Requests are written for the model (chat_request_body.h) and rewritten once when
// the server refuses a parameter; replies are streamed (server-sent events, with an idle limit
// instead of a limit on the whole reply) or read whole. Retries 429, 5xx, transport errors and
// malformed replies with exponential backoff that honours the server's rate-limit headers;
// counts tokens against a hard budget, estimating those of requests that failed.
#pragma once

#include <chrono>

#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>

#include "common/http_client.h"
#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/chat_request_body.h"
#include "search/llm/token_ledger.h"

namespace kb::search {

class CompletionStream;
struct ProviderError;

// Timing knobs of the retry loop (tests shrink them).
struct RetryPolicy {
  double base_delay_s = 1.0;
  double max_delay_s = 60.0;
  double max_server_wait_s = 600;  // a Retry-After beyond this is not waited out: the request fails
};

// The HTTP ChatBackend: one endpoint, one key, retries and the shared token ledger.
class OpenAiChatClient : public ChatBackend {
 public:
  // Throws UsageError naming the variable when [llm].api_key_env is set but the environment has
  // no such variable (api_key_env = "" sends no key, for local servers).
  OpenAiChatClient(const config::LlmConfig& llm, std::shared_ptr<TokenLedger> ledger, RetryPolicy policy = {});

  // Throws ChatError: `service` after the retries, `configuration` at once (a refused key, URL,
  // model or parameter, no quota), `answer` for a reply with nothing to read (a refusal, a reply
  // cut off before any answer).
  ChatReply complete(const ChatRequest& request) override;
  // A request of at most 16 tokens, retried at most twice.
  void preflight() override;
  TokenUsage usage() const override { return ledger_->usage(); }
  std::string describe() const override;
  std::optional<int64_t> context_tokens() const override;
  int64_t attempts() const;  // HTTP requests sent: retries and rewritten requests included

 private:
  // What one request's attempts carry from one to the next.
  struct Attempts {
    int64_t failures = 0;       // counted against max_retries
    int rewrites = 0;           // resent in another shape, or with a smaller token limit
    int64_t fitted_max_tokens;  // what the model's context leaves for the reply
    std::string last_error;
    std::optional<double> server_wait;
  };
  enum class Next { retry, resend };

  // With a deadline, every attempt, wait and retry ends by it: a silent server costs that long in
  // total, not that long per attempt.
  ChatReply exchange(const ChatRequest& request, int64_t max_retries,
                     std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  // The request's reply limit, capped to what a known context leaves after its prompt (estimated
  // at 4 characters a token); throws PromptTooLong when that is too little for a reply.
  int64_t reply_limit_within_context(const ChatRequest& request) const;
  HttpRequest http_request(const ChatRequest& request, const ShapeChoice& shape, int64_t max_tokens,
                           CompletionStream& stream) const;
  // After an HTTP error: what to do next, or throws ChatError when nothing will help.
  Next on_error_status(const HttpResponse& response, const ShapeChoice& sent, int64_t max_tokens, Attempts& state);
  Next on_bad_request(const ProviderError& error, const ShapeChoice& sent, int64_t max_tokens, Attempts& state);
  std::string refused(const ProviderError& error, const std::string& hint = "") const;
  void charge_estimate(const ChatRequest& request, const CompletionStream& stream);
  static void tell_failed(const ChatRequest& request, const FailedAttempt& attempt);
  double next_jitter();

  config::LlmConfig llm_;
  std::string url_;
  std::string api_key_;
  std::shared_ptr<TokenLedger> ledger_;
  std::shared_ptr<RequestShape> shape_;
  RetryPolicy policy_;
  std::counting_semaphore<1024> in_flight_;  // [llm].concurrency requests to one server at most
  mutable std::mutex mutex_;
  int64_t attempts_ = 0;
  std::optional<int64_t> context_tokens_;  // [llm].context_tokens, or named by the server in a refusal
  uint64_t jitter_state_ = 0x9e3779b97f4a7c15ull;
};

}  // namespace kb::search
