// What kernelbot knows about the ways OpenAI-compatible servers differ, in one table: each request
// feature some servers refuse, the field a refusal names, what the request does instead for the
// rest of the run, and the `[llm]` key that decides it up front. provider_error.cpp recognizes a
// refusal, chat_request_body.cpp's RequestShape adapts, and openai_chat_client.cpp names the key
// when the configuration forbids adapting; all three read this table. docs/llm.md's table of
// refused features lists the same rows (a test compares them).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace kb::search {

// A request feature an endpoint may refuse with a 400 and kernelbot can do without.
enum class RequestFeature {
  max_tokens,             // the reply limit under its older name (OpenAI's reasoning models refuse it)
  max_completion_tokens,  // ...under its newer name (older servers and some Azure deployments refuse it)
  temperature,            // reasoning models take only their default
  stream_options,         // {"include_usage": true}: token counts at the end of a stream
  stream,                 // streamed replies
  system_role,            // a message with role "system" (o1-mini and its kind)
};

struct ProviderFact {
  RequestFeature feature;
  std::string_view field;       // what a refusal names: the request field ("system_role": the system message)
  std::string_view adaptation;  // what every later request of the run does instead (logged once)
  std::string_view config_key;  // the [llm] key that decides it up front; empty when only learned
};

// Every row, in the order a refusal's message is searched for the field it names first.
std::span<const ProviderFact> provider_facts();
const ProviderFact& provider_fact(RequestFeature feature);
// The feature whose field is `field` ("max_tokens", "system_role", ...); nullopt for any other.
std::optional<RequestFeature> request_feature_named(std::string_view field);

}  // namespace kb::search
