// Where the llm proposer's replies come from: a chat model over HTTP (OpenAiChatClient), a
// recorded file (ReplayChatBackend), or either one with every exchange written down
// (RecordingChatBackend). The proposer does not know which.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "search/types/proposer.h"

namespace kb::search {

// One message of a chat: its role and text.
struct ChatMessage {
  std::string role;  // system | user | assistant
  std::string content;
};

// One attempt of an exchange that failed, retried or not: what the server answered, or the
// transport error. A recording keeps them (redacted), the evidence of a lost round.
struct FailedAttempt {
  long status = 0;    // the HTTP status; 0 when no answer came
  std::string body;   // the answer's body as it came
  std::string error;  // what the client made of it: "HTTP 503: overloaded", "no reply within ..."
};

// One exchange to have with the model: the messages and sampling settings, named for recording.
struct ChatRequest {
  std::string step;                                   // ideas | implement | crossover | repair
  std::string key;                                    // names the exchange in a recording: "r1", "r1-i0-b2"
  nlohmann::json summary = nlohmann::json::object();  // what was asked, briefly (for the recording)
  std::vector<ChatMessage> messages;
  double temperature = 0.7;
  int64_t max_tokens = 32768;
  // Told of every failed attempt before it is retried or given up (RecordingChatBackend); may be
  // called from the thread that asked.
  std::function<void(const FailedAttempt&)> on_failed_attempt = {};
};

// What the model answered, with the tokens it cost.
struct ChatReply {
  std::string content;        // the answer: never reasoning (<think> blocks and reasoning fields are apart)
  std::string reasoning;      // what the model thought before answering, when the server shows it
  std::string refusal;        // the model declined (OpenAI's `refusal` field)
  std::string finish_reason;  // "stop", "length", ...
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  bool usage_estimated = false;  // the server sent no `usage`; counted from the text's length
  std::string model;
  // A replayed reply to a prompt that showed the launcher's excerpt (recorded as
  // "request": {"excerpt": true}): the replay splices it as the recorded run did.
  bool to_excerpt = false;
};

// Why a request failed, which says what can be done about it.
enum class ChatFailure {
  service,        // the endpoint failed: unreachable, timeouts, 5xx, malformed replies (after retries)
  configuration,  // the request or the account is wrong: 401, 403, 404, a refused 400, no quota
  answer,         // the model answered, but with nothing usable: a refusal, a reply that was all reasoning
};

// The model could not be asked, or gave nothing usable.
struct ChatError : Error {
  explicit ChatError(const std::string& what, ChatFailure failure = ChatFailure::service)
      : Error(what), kind(failure) {}
  ChatFailure kind;
};

// A replay file has no reply recorded for this exchange.
struct ReplayMissing : ChatError {
  using ChatError::ChatError;
};

// The server refused the prompt as longer than the model's context (a configuration error when
// nothing shorter can be asked): the llm proposer asks once more showing only the launcher's part
// of the source (search/llm/prompt_source.h).
struct PromptTooLong : ChatError {
  PromptTooLong(const std::string& what, std::optional<int64_t> context_tokens)
      : ChatError(what, ChatFailure::configuration), context(context_tokens) {}
  std::optional<int64_t> context;  // the model's context in tokens, when the server said
};

// The source of replies the llm proposer asks.
class ChatBackend {
 public:
  virtual ~ChatBackend() = default;
  // Thread-safe. Throws ChatError, or BudgetExhausted (token_ledger.h) when the budget is spent.
  virtual ChatReply complete(const ChatRequest& request) = 0;
  virtual TokenUsage usage() const = 0;
  virtual std::string describe() const = 0;  // "gpt-4o at https://api.openai.com/v1"
  // One small request before any GPU work, so that a wrong key, URL, model or parameter is
  // reported in seconds: throws UsageError (exit 2) for those, kb::Error (exit 1) when the service
  // does not answer. Nothing to check by default (a replay).
  virtual void preflight() {}
  // The model's context in tokens: [llm].context_tokens, or once a server has named it in a refusal.
  virtual std::optional<int64_t> context_tokens() const { return std::nullopt; }
  virtual void finish(const SearchResult& /*result*/) {}
};

}  // namespace kb::search
