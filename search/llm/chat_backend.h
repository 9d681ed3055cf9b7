// Where the llm proposer's replies come from: a chat model over HTTP (OpenAiChatClient), a
// recorded file (ReplayChatBackend), or either one with every exchange written down
// (RecordingChatBackend). The proposer does not know which.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/proposer.h"

namespace kb::search {

// One message of a chat: its role and text.
struct ChatMessage {
  std::string role;  // system | user | assistant
  std::string content;
};

// One exchange to have with the model: the messages and sampling settings, named for recording.
struct ChatRequest {
  std::string step;  // ideas | implement | crossover | repair
  std::string key;   // names the exchange in a recording: "r1", "r1-i0-b2"
  nlohmann::json summary = nlohmann::json::object();  // what was asked, briefly (for the recording)
  std::vector<ChatMessage> messages;
  double temperature = 0.7;
  int64_t max_tokens = 8192;
};

// What the model answered, with the tokens it cost.
struct ChatReply {
  std::string content;
  std::string finish_reason;  // "stop", "length", ...
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  bool usage_estimated = false;  // the server sent no `usage`; counted from the text's length
  std::string model;
};

// The model could not be asked: retries exhausted, a permanent error (401, 404...), a bad reply.
struct ChatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A replay file has no reply recorded for this exchange.
struct ReplayMissing : ChatError {
  using ChatError::ChatError;
};

// The source of replies the llm proposer asks.
class ChatBackend {
 public:
  virtual ~ChatBackend() = default;
  // Thread-safe. Throws ChatError, or BudgetExhausted (token_ledger.h) when the budget is spent.
  virtual ChatReply complete(const ChatRequest& request) = 0;
  virtual TokenUsage usage() const = 0;
  virtual std::string describe() const = 0;  // "gpt-4o at https://api.openai.com/v1"
  virtual void finish(const SearchResult& /*result*/) {}
};

}  // namespace kb::search
