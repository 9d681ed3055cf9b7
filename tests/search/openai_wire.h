// What OpenAI-compatible servers send, for the loopback servers of the client's tests: whole
// chat completions, streamed chunks (server-sent events), and a config pointing at a server.
#pragma once

#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/openai_chat_client.h"
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

// [llm] for a loopback server, the key in KB_TEST_LLM_KEY.
inline config::LlmConfig llm_for(const LoopbackHttpServer& server, const std::string& model = "test-model") {
  config::LlmConfig llm;
  llm.provider = "openai-compatible";
  llm.base_url = server.base_url() + "/v1/";
  llm.model = model;
  llm.api_key_env = "KB_TEST_LLM_KEY";
  llm.timeout_s = 2;
  llm.max_retries = 3;
  setenv("KB_TEST_LLM_KEY", "sk-test-123", 1);
  return llm;
}

inline search::RetryPolicy fast_retries() { return search::RetryPolicy{0.01, 0.05, 5}; }

inline search::ChatRequest hello(int64_t max_tokens = 500) {
  search::ChatRequest r;
  r.step = "ideas";
  r.key = "r1";
  r.messages = {{"system", "be brief"}, {"user", "hello"}};
  r.max_tokens = max_tokens;
  r.temperature = 0.3;
  return r;
}

}  // namespace kb::testing
