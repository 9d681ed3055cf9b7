// How a chat-completions request is written for one endpoint and model: the URL (a base URL may
// carry a query, as Azure's ?api-version=... does), the header the key goes in, and the body,
// whose parameters differ between model families: OpenAI's reasoning models (o1, o3, o4, gpt-5)
// take max_completion_tokens and refuse a temperature, older servers know only max_tokens, some
// refuse streaming or its usage option. What an endpoint refuses is learned from its 400 once
// and remembered, for the rest of the run, by every client of that endpoint and model.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/provider_facts.h"

namespace kb::search {

// How one request is written.
struct ShapeChoice {
  bool max_completion_tokens = false;  // the name of the reply's token limit (else max_tokens)
  bool temperature = true;             // send [llm].temperature
  bool stream = true;                  // ask for server-sent events
  bool stream_options = true;          // with {"include_usage": true}, for the token count
  bool system_role = true;             // a system message (else folded into the first user message)
};

// What the endpoint accepts, as learned so far; shared by the threads of a run.
class RequestShape {
 public:
  explicit RequestShape(const ShapeChoice& start);
  ShapeChoice now() const;

  enum class Adaptation {
    none,             // nothing to change: the config fixed this parameter, or it is not ours to drop
    learned,          // changed now, for every later request
    already_learned,  // another request changed it meanwhile: send this one again as it is now
  };
  // After the server refused `refused` of a request sent as `sent`. `what` says what changed (the
  // feature's adaptation in provider_facts.h).
  Adaptation adapt(const ShapeChoice& sent, RequestFeature refused, const config::LlmConfig& llm, std::string& what);

 private:
  std::atomic<bool> max_completion_tokens_, temperature_, stream_, stream_options_, system_role_;
};

// The shape this config starts with, shared with every earlier client of the same endpoint,
// model and settings in this process (what they learned included).
std::shared_ptr<RequestShape> request_shape_for(const config::LlmConfig& llm);

// o1, o3-mini, o4-mini, gpt-5, "openai/o3" (a gateway's provider prefix is ignored).
bool is_openai_reasoning_model(const std::string& model);

// The first shape for a config, before the server said anything.
ShapeChoice initial_shape(const config::LlmConfig& llm);

// {base_url}/chat/completions, the path going before the base URL's query string if it has one.
std::string chat_completions_url(const std::string& base_url);

// The request's headers: JSON, the key in [llm].api_key_header ("Bearer KEY" in Authorization,
// the bare key in any other), then [llm].extra_headers. No key: no key header.
std::vector<std::pair<std::string, std::string>> request_headers(const config::LlmConfig& llm,
                                                                 const std::string& api_key);

// The JSON body: model, messages, the token limit under its name, temperature, streaming, then
// [llm].extra_body merged over it.
nlohmann::json request_body(const ChatRequest& request, const config::LlmConfig& llm, const ShapeChoice& shape,
                            int64_t max_tokens);

}  // namespace kb::search
