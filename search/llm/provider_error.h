// What an endpoint's error answer says, read from the shapes providers use: OpenAI's
// {"error": {"message", "type", "param", "code"}} (also Azure, vLLM, SGLang, gateways), vLLM's older
// {"object": "error", "message", ...}, llama.cpp's {"error": {..., "n_prompt_tokens", "n_ctx"}},
// Ollama's {"error": "..."} and FastAPI's {"detail": "..."}. The client decides from it whether
// to rewrite the request, shorten the reply, wait, or stop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/http_client.h"
#include "search/llm/provider_facts.h"

namespace kb::search {

struct ProviderError {
  long status = 0;
  std::string message;  // the provider's own words (or the start of the body)
  std::string type;
  std::string code;                               // "unsupported_parameter", "insufficient_quota", "400", ...
  std::string param;                              // the request field it is about, when it says
  std::optional<int64_t> n_ctx, n_prompt_tokens;  // llama.cpp's sizes, with a context overflow
};

ProviderError read_provider_error(const HttpResponse& response);

// The request feature the server refuses (provider_facts.h), when the error is that kind of
// refusal: the field it names in `param` or first in its message, or the system message's role
// ("'messages[0].role' does not support 'system'"); nullopt otherwise.
std::optional<RequestFeature> refused_feature(const ProviderError& error);

// The account has no quota or credit left: waiting does not help (OpenAI's insufficient_quota).
bool is_insufficient_quota(const ProviderError& error);

// The prompt and the reply's token limit do not fit the model's context. `context` and `prompt`
// are the sizes the server names, when it does (vLLM and llama.cpp do).
struct ContextOverflow {
  std::optional<int64_t> context;
  std::optional<int64_t> prompt;
};
std::optional<ContextOverflow> context_overflow(const ProviderError& error);

}  // namespace kb::search
