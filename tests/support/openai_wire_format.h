// What OpenAI-compatible servers send, for loopback servers that play one: whole chat
// completions and streamed chunks (server-sent events). Only the wire format: no kernelbot
// code, so the family servers (model_families.h) and the client's tests share it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/loopback_http_server.h"

namespace kb::testing {

// A whole chat completion with one choice.
inline std::string completion_body(const nlohmann::json& message, const std::string& finish = "stop", int prompt = 100,
                                   int completion = 50) {
  nlohmann::json j{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"model", "test-model"},
      {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
      {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}}}};
  return j.dump();
}

// One server-sent event holding a chunk whose first choice has `delta` (and a finish reason).
inline std::string sse_chunk(const nlohmann::json& delta, const nlohmann::json& finish = nullptr) {
  nlohmann::json j{{"id", "chatcmpl-1"},
                   {"object", "chat.completion.chunk"},
                   {"model", "test-model"},
                   {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}};
  return "data: " + j.dump() + "\n\n";
}

// One server-sent event holding `chunk` as it is.
inline std::string sse_event(const nlohmann::json& chunk) { return "data: " + chunk.dump() + "\n\n"; }

// The last chunk of a stream asked with stream_options.include_usage: no choices, the usage.
inline std::string sse_usage(int prompt, int completion) {
  nlohmann::json j{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion.chunk"},
      {"choices", nlohmann::json::array()},
      {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}}}};
  return "data: " + j.dump() + "\n\n";
}

inline const char* kSseDone = "data: [DONE]\n\n";

// A streamed 200: each piece `gap_s` after the one before.
inline LoopbackResponse sse_response(const std::vector<std::string>& pieces, double gap_s = 0) {
  LoopbackResponse r;
  r.headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
  for (const auto& p : pieces) r.stream.emplace_back(gap_s, p);
  return r;
}

}  // namespace kb::testing
