// For the loopback servers of the client's tests: what OpenAI-compatible servers send
// (tests/support/openai_wire_format.h), and a config and a request pointing at a server.
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
#include "tests/support/openai_wire_format.h"

namespace kb::testing {

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
