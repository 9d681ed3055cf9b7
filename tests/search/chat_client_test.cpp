// The OpenAI-compatible client against a loopback server that speaks chat completions and
// fails the ways real endpoints do: 429 with Retry-After, 5xx, slow replies, malformed JSON,
// hang-ups, auth errors; plus token accounting and the hard budget.
#include "search/llm/openai_chat_client.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "core/errors.h"
#include "search/llm/token_ledger.h"
#include "tests/support/loopback_http_server.h"

using namespace kb::search;
using kb::testing::json_response;
using kb::testing::LoopbackHttpServer;
using kb::testing::LoopbackRequest;
using kb::testing::LoopbackResponse;

namespace {

std::string completion(const std::string& content, const std::string& finish = "stop", int prompt = 100,
                       int completion_tokens = 50) {
  nlohmann::json j{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"model", "test-model"},
      {"choices",
       {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", finish}}}},
      {"usage",
       {{"prompt_tokens", prompt},
        {"completion_tokens", completion_tokens},
        {"total_tokens", prompt + completion_tokens}}}};
  return j.dump();
}

kb::config::LlmConfig llm_for(const LoopbackHttpServer& server) {
  kb::config::LlmConfig llm;
  llm.provider = "openai-compatible";
  llm.base_url = server.base_url() + "/v1/";
  llm.model = "test-model";
  llm.api_key_env = "KB_TEST_LLM_KEY";
  llm.timeout_s = 2;
  llm.max_retries = 3;
  setenv("KB_TEST_LLM_KEY", "sk-test-123", 1);
  return llm;
}

RetryPolicy fast_retries() { return RetryPolicy{0.01, 0.05, 5}; }

ChatRequest hello() {
  ChatRequest r;
  r.step = "ideas";
  r.key = "r1";
  r.messages = {{"system", "be brief"}, {"user", "hello"}};
  r.max_tokens = 500;
  r.temperature = 0.3;
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(ChatClient, SpeaksTheChatCompletionsProtocolAndCountsTokens) {
  LoopbackHttpServer server([](const LoopbackRequest&) { return json_response(200, completion("hi there")); });
  auto ledger = std::make_shared<TokenLedger>(0, 0, 2.0, 8.0);
  OpenAiChatClient client(llm_for(server), ledger, fast_retries());
  ChatReply reply = client.complete(hello());
  EXPECT_EQ(reply.content, "hi there");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.prompt_tokens, 100);
  EXPECT_EQ(reply.completion_tokens, 50);
  EXPECT_FALSE(reply.usage_estimated);
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v1/chat/completions");
  EXPECT_EQ(seen[0].headers["authorization"], "Bearer sk-test-123");
  auto body = nlohmann::json::parse(seen[0].body);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 500);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "hello");
  auto usage = client.usage();
  EXPECT_EQ(usage.prompt_tokens, 100);
  EXPECT_EQ(usage.completion_tokens, 50);
  EXPECT_EQ(usage.requests, 1);
  EXPECT_NEAR(usage.cost_usd, (100 * 2.0 + 50 * 8.0) / 1e6, 1e-12);
}

TEST(ChatClient, AMissingKeyVariableIsNamed) {
  LoopbackHttpServer server([](const LoopbackRequest&) { return json_response(200, completion("x")); });
  auto llm = llm_for(server);
  llm.api_key_env = "KB_TEST_UNSET_KEY_VARIABLE";
  unsetenv("KB_TEST_UNSET_KEY_VARIABLE");
  try {
    OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("KB_TEST_UNSET_KEY_VARIABLE"), std::string::npos) << e.what();
  }
  llm.api_key_env = "";  // a local server without keys
  OpenAiChatClient keyless(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  keyless.complete(hello());
  EXPECT_EQ(server.requests().back().headers.count("authorization"), 0u);
}

TEST(ChatClient, WaitsOutA429AsLongAsRetryAfterSays) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    if (calls++ == 0)
      return json_response(429, R"({"error":{"message":"Rate limit reached"}})", {{"Retry-After", "1"}});
    return json_response(200, completion("ok"));
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(client.complete(hello()).content, "ok");
  EXPECT_GE(seconds_since(t0), 0.95);  // the backoff alone would be 10 ms
  EXPECT_EQ(client.attempts(), 2);
}

TEST(ChatClient, GivesUpAtOnceWhenTheServerAsksForTooLongAWait) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return json_response(429, R"({"error":{"message":"quota"}})", {{"Retry-After", "3600"}});
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("3600"), std::string::npos) << e.what();
  }
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_EQ(client.attempts(), 1);
}

TEST(ChatClient, Retries5xxThenSucceeds) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    int n = calls++;
    if (n == 0) return json_response(500, R"({"error":{"message":"boom"}})");
    if (n == 1) return json_response(503, "<html>busy</html>");
    return json_response(200, completion("third time"));
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "third time");
  EXPECT_EQ(client.attempts(), 3);
}

TEST(ChatClient, GivesUpAfterMaxRetriesWithTheLastError) {
  LoopbackHttpServer server([](const LoopbackRequest&) { return json_response(502, R"({"error":"bad gateway"})"); });
  auto llm = llm_for(server);
  llm.max_retries = 2;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("after 3 attempts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad gateway"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(client.usage().requests, 0);
}

TEST(ChatClient, ASlowServerTimesOutAndIsRetriedWithinBounds) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = json_response(200, completion("late"));
    r.delay_s = 5;
    return r;
  });
  auto llm = llm_for(server);
  llm.timeout_s = 0.2;
  llm.max_retries = 1;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("timeout_s"), std::string::npos) << e.what();
  }
  EXPECT_LT(seconds_since(t0), 1.5);
  EXPECT_EQ(client.attempts(), 2);
}

TEST(ChatClient, MalformedRepliesAreRetriedAndNeverCrash) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    switch (calls++) {
      case 0: return json_response(200, "{\"choices\": [ {\"message\": ");  // cut JSON
      case 1: return json_response(200, R"({"choices": []})");
      case 2: return json_response(200, R"({"object": "error"})");
      default: {
        LoopbackResponse r;
        r.hang_up = true;
        return r;
      }
    }
  });
  auto llm = llm_for(server);
  llm.max_retries = 4;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("after 5 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(client.attempts(), 5);
}

TEST(ChatClient, AuthErrorsAreNotRetried) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return json_response(401, R"({"error":{"message":"Incorrect API key provided"}})");
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("HTTP 401: Incorrect API key provided"), std::string::npos) << e.what();
  }
  EXPECT_EQ(client.attempts(), 1);
}

TEST(ChatClient, StopsRequestingWhenTheTokenBudgetIsSpent) {
  LoopbackHttpServer server([](const LoopbackRequest&) { return json_response(200, completion("x", "stop", 80, 40)); });
  auto ledger = std::make_shared<TokenLedger>(200, 0, 0, 0);
  OpenAiChatClient client(llm_for(server), ledger, fast_retries());
  client.complete(hello());  // 120 spent
  client.complete(hello());  // 240 spent: over, but it was admitted with 80 left
  auto second = nlohmann::json::parse(server.requests()[1].body);
  EXPECT_EQ(second["max_tokens"], 80);  // never asks for more than the budget has left
  EXPECT_THROW(client.complete(hello()), BudgetExhausted);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(client.usage().total(), 240);
}

TEST(ChatClient, StopsRequestingWhenTheMoneyBudgetIsSpent) {
  LoopbackHttpServer server(
      [](const LoopbackRequest&) { return json_response(200, completion("x", "stop", 1'000'000, 0)); });
  auto ledger = std::make_shared<TokenLedger>(0, 1.0, 1.5, 10.0);  // $1.50 per call, $1 budget
  OpenAiChatClient client(llm_for(server), ledger, fast_retries());
  client.complete(hello());
  try {
    client.complete(hello());
    FAIL() << "expected the budget to stop it";
  } catch (const BudgetExhausted& e) {
    EXPECT_NE(std::string(e.what()).find("max_cost_usd"), std::string::npos);
  }
  EXPECT_NEAR(client.usage().cost_usd, 1.5, 1e-9);
}

TEST(ChatClient, EstimatesTokensWhenTheServerSendsNoUsage) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return json_response(
        200, R"({"choices":[{"message":{"role":"assistant","content":"abcdefgh"},"finish_reason":"stop"}]})");
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto reply = client.complete(hello());
  EXPECT_TRUE(reply.usage_estimated);
  EXPECT_EQ(reply.completion_tokens, 3);  // 8 characters / 4 + 1
  EXPECT_GT(client.usage().prompt_tokens, 0);
}

TEST(ChatClient, WaitsForAnOpenAiStyleLimitToReset) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    if (calls++ == 0)
      return json_response(
          429,
          R"({"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}})",
          {{"x-ratelimit-remaining-requests", "0"},
           {"x-ratelimit-reset-requests", "1s"},
           {"x-ratelimit-remaining-tokens", "39000"},
           {"x-ratelimit-reset-tokens", "20ms"}});
    return json_response(200, completion("ok"));
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(client.complete(hello()).content, "ok");
  EXPECT_GE(seconds_since(t0), 0.95);  // the spent limit's reset, not the 10 ms backoff
}

TEST(ChatClient, HonoursRetryAfterMsAndIgnoresOtherProvidersEpochResets) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    switch (calls++) {
      case 0: return json_response(429, R"({"error":{"message":"slow down"}})", {{"retry-after-ms", "400"}});
      case 1:  // OpenRouter's reset is epoch milliseconds: read as GitHub's rule, a wait of decades
        return json_response(429, R"({"error":{"message":"Rate limit exceeded"}})",
                             {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1893456000000"}});
      default: return json_response(200, completion("ok"));
    }
  });
  OpenAiChatClient client(llm_for(server), std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(client.complete(hello()).content, "ok");
  EXPECT_GE(seconds_since(t0), 0.38);
  EXPECT_LT(seconds_since(t0), 2.0);
  EXPECT_EQ(client.attempts(), 3);
}

TEST(ChatClient, NoMoreRequestsInFlightThanConcurrencyAllows) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = json_response(200, completion("x"));
    r.delay_s = 0.15;
    return r;
  });
  auto llm = llm_for(server);
  llm.concurrency = 2;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) threads.emplace_back([&] { client.complete(hello()); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(server.requests().size(), 6u);
  EXPECT_EQ(server.max_in_flight(), 2);
}

TEST(ChatClient, TokensOfFailedRequestsAreCountedAsEstimates) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    if (calls++ < 2) return json_response(500, R"({"error":{"message":"boom"}})");
    return json_response(200, completion("ok", "stop", 100, 50));
  });
  auto ledger = std::make_shared<TokenLedger>(0, 0, 0, 0);
  OpenAiChatClient client(llm_for(server), ledger, fast_retries());
  client.complete(hello());
  auto usage = ledger->usage();
  EXPECT_EQ(usage.requests, 1);
  EXPECT_EQ(usage.estimated_tokens, 2 * 4);  // two failed prompts of about 13 / 4 + 1 tokens
  EXPECT_EQ(usage.total(), 150 + 8);
}

// An endpoint that accepts the connection and never answers holds the preflight for
// [llm].timeout_s once in total, retries included, not once per attempt; the error says why.
TEST(ChatClient, APreflightToAServerThatNeverAnswersTakesOneTimeoutInTotal) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = json_response(200, completion("ok"));
    r.delay_s = 60;  // never, for this test
    return r;
  });
  auto llm = llm_for(server);
  llm.timeout_s = 0.8;
  llm.max_retries = 5;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  const auto t0 = std::chrono::steady_clock::now();
  try {
    client.preflight();
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not answer kernelbot's check request"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("timeout_s"), std::string::npos) << e.what();
  }
  const double took = seconds_since(t0);
  EXPECT_GE(took, 0.7);
  EXPECT_LT(took, 1.4);  // three attempts of 0.8 s each would be 2.4 s
}

// An ordinary request (not the preflight) to an endpoint that accepts it and never answers: while
// it waits, the log names the endpoint and how long it has waited; a silent attempt is sent once
// more with a line that states when the request ends; then it ends, after two timeouts, not after
// 1 + max_retries of them.
TEST(ChatClient, ARequestToAServerThatNeverAnswersSaysSoAndEndsAfterTwoTimeouts) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = json_response(200, completion("late"));
    r.delay_s = 60;  // never, for this test
    return r;
  });
  auto llm = llm_for(server);
  llm.timeout_s = 1;
  llm.max_retries = 5;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), fast_retries());
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  const auto t0 = std::chrono::steady_clock::now();
  std::string error;
  try {
    client.complete(hello());
  } catch (const ChatError& e) {
    error = e.what();
  }
  const double took = seconds_since(t0);
  spdlog::set_default_logger(previous);
  EXPECT_NE(error.find("2 of 2 attempts got no reply: not retried again"), std::string::npos) << error;
  EXPECT_EQ(client.attempts(), 2);
  EXPECT_GE(took, 1.9);
  EXPECT_LT(took, 3.5);  // six attempts of 1 s each would be 6 s
  const std::string endpoint = "test-model at " + server.base_url() + "/v1";
  const std::string text = log.str();
  // Within half the timeout: "(0 s so far" or "(1 s so far", as the clock rounds.
  EXPECT_NE(text.find("llm ideas r1: waiting for " + endpoint + " to answer ("), std::string::npos) << text;
  EXPECT_NE(text.find(" s so far; [llm].timeout_s = 1 s)"), std::string::npos) << text;
  EXPECT_NE(text.find("from " + endpoint + "; sending it once more in"), std::string::npos) << text;
  EXPECT_NE(text.find("if that gets no reply either, this request ends after "), std::string::npos) << text;
}
