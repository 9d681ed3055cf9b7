// The client against loopback servers that behave as each family of endpoint documents: OpenAI's
// reasoning models (refusing max_tokens and temperature with OpenAI's own 400 bodies), servers
// that show reasoning apart from the answer (DeepSeek, vLLM's reasoning parsers), local servers
// with a small context (vLLM, llama.cpp), Azure OpenAI (a deployment URL with ?api-version and an
// `api-key` header), and the errors that no retry can fix (401, 404, no quota). Where a family's
// whole behaviour is needed, its server is the shared one (tests/support/model_families.h) that
// the README's configurations are driven through in model_families_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "search/llm/openai_chat_client.h"
#include "search/llm/token_ledger.h"
#include "tests/search/openai_wire.h"
#include "tests/support/model_families.h"

using namespace kb::search;
using namespace kb::testing;

namespace {

std::shared_ptr<TokenLedger> ledger() { return std::make_shared<TokenLedger>(0, 0, 0, 0); }

nlohmann::json body_of(const LoopbackRequest& r) { return nlohmann::json::parse(r.body); }

// OpenAI's reasoning models as the shared family server plays them (tests/support/model_families.h):
// the key llm_for() sets, 400s for max_tokens and temperature, "ok" to anything but a search's
// prompts, streamed with a usage chunk.
FamilyOptions openai_reasoning() {
  FamilyOptions options;
  options.key = "sk-test-123";
  return options;
}

LoopbackHttpServer::Handler reasoning_model() {
  return family_handler(ModelFamily::reasoning, ScriptedModel{}, openai_reasoning());
}

template <class Fn>
std::string error_of(Fn&& fn, ChatFailure* kind = nullptr) {
  try {
    fn();
  } catch (const ChatError& e) {
    if (kind) *kind = e.kind;
    return e.what();
  }
  ADD_FAILURE() << "expected a ChatError";
  return "";
}

}  // namespace

TEST(ReasoningModel, RefusedParametersAreRewrittenOnceAndRememberedForTheRun) {
  LoopbackHttpServer server(reasoning_model());
  // A deployment name says nothing of the family: kernelbot learns it from the 400s.
  auto llm = llm_for(server, "corp-reasoner");
  OpenAiChatClient client(llm, ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "ok");
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);  // max_tokens refused, temperature refused, answered
  auto last = body_of(seen[2]);
  EXPECT_EQ(last["max_completion_tokens"], 500);
  EXPECT_FALSE(last.contains("max_tokens"));
  EXPECT_FALSE(last.contains("temperature"));
  // From the stream's usage chunk: the reasoning's 117 characters at 4 a token ("ok" counts 0).
  EXPECT_EQ(client.usage().completion_tokens, 29);

  EXPECT_EQ(client.complete(hello()).content, "ok");
  EXPECT_EQ(server.requests().size(), 4u);                // asked right the first time
  OpenAiChatClient later(llm, ledger(), fast_retries());  // the next kernel's search, same run
  EXPECT_EQ(later.complete(hello()).content, "ok");
  EXPECT_EQ(server.requests().size(), 5u);
}

TEST(ReasoningModel, ConcurrentRequestsAllRecoverFromTheSameRefusals) {
  LoopbackHttpServer server(reasoning_model());
  auto llm = llm_for(server, "corp-reasoner-concurrent");
  OpenAiChatClient client(llm, ledger(), fast_retries());
  std::vector<std::future<std::string>> replies;
  for (int i = 0; i < 6; ++i)
    replies.push_back(std::async(std::launch::async, [&] { return client.complete(hello()).content; }));
  for (auto& r : replies) EXPECT_EQ(r.get(), "ok");
  EXPECT_LE(server.requests().size(), 18u);  // at most the two refusals each
  EXPECT_GE(server.requests().size(), 8u);
}

TEST(ReasoningModel, AKnownReasoningModelIsAskedRightTheFirstTime) {
  LoopbackHttpServer server(reasoning_model());
  OpenAiChatClient client(llm_for(server, "o3-mini"), ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "ok");
  ASSERT_EQ(server.requests().size(), 1u);
  auto body = body_of(server.requests()[0]);
  EXPECT_EQ(body["max_completion_tokens"], 500);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_EQ(body["stream"], true);
}

TEST(ReasoningModel, AnExplicitSettingIsNotOverruledButNamedInTheError) {
  LoopbackHttpServer server(reasoning_model());
  auto llm = llm_for(server, "o3");
  llm.token_parameter = "max_tokens";
  OpenAiChatClient client(llm, ledger(), fast_retries());
  ChatFailure kind{};
  std::string what = error_of([&] { client.complete(hello()); }, &kind);
  EXPECT_EQ(kind, ChatFailure::configuration);
  EXPECT_NE(what.find("Unsupported parameter: 'max_tokens'"), std::string::npos) << what;
  EXPECT_NE(what.find("[llm].token_parameter"), std::string::npos) << what;
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ReasoningModel, AReplyThatWasAllReasoningSaysToRaiseTheLimit) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return json_response(200, completion_body({{"role", "assistant"}, {"content", ""}}, "length", 100, 500));
  });
  OpenAiChatClient client(llm_for(server, "o4-mini"), ledger(), fast_retries());
  ChatFailure kind{};
  std::string what = error_of([&] { client.complete(hello()); }, &kind);
  EXPECT_EQ(kind, ChatFailure::answer);
  EXPECT_NE(what.find("max_tokens_per_reply"), std::string::npos) << what;
  EXPECT_NE(what.find("500 tokens"), std::string::npos) << what;
  EXPECT_EQ(client.usage().completion_tokens, 500);  // spent all the same
  EXPECT_EQ(server.requests().size(), 1u);           // no retry: the same limit would do the same
}

TEST(ReasoningModel, ARefusalIsReportedAsOne) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return json_response(200,
                         completion_body(
                             {{"role", "assistant"}, {"content", nullptr}, {"refusal", "I can't help with that."}}));
  });
  OpenAiChatClient client(llm_for(server, "gpt-5"), ledger(), fast_retries());
  ChatFailure kind{};
  std::string what = error_of([&] { client.complete(hello()); }, &kind);
  EXPECT_EQ(kind, ChatFailure::answer);
  EXPECT_EQ(what, "the model refused: I can't help with that.");
}

TEST(SeparateReasoning, StreamedReasoningContentIsNeverTheAnswer) {
  // DeepSeek-R1 and vLLM's reasoning parsers: reasoning_content deltas, then content deltas.
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return sse_response({sse_chunk({{"role", "assistant"}, {"reasoning_content", ""}}),
                         sse_chunk({{"reasoning_content", "The loads are strided; "}}),
                         sse_chunk({{"reasoning_content", "```cuda\nnot this\n```"}}),
                         sse_chunk({{"content", "```cuda\n__global__ void k() {}\n"}}), sse_chunk({{"content", "```"}}),
                         sse_chunk(nlohmann::json::object(), "stop"), sse_usage(300, 900), kSseDone},
                        0.01);
  });
  OpenAiChatClient client(llm_for(server, "deepseek-reasoner"), ledger(), fast_retries());
  ChatReply reply = client.complete(hello());
  EXPECT_EQ(reply.content, "```cuda\n__global__ void k() {}\n```");
  EXPECT_EQ(reply.reasoning, "The loads are strided; ```cuda\nnot this\n```");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.completion_tokens, 900);
}

TEST(SeparateReasoning, AThinkDraftAfterStreamedReasoningContentIsReasoningToo) {
  // The family server streams reasoning_content, then content that opens with a <think> draft;
  // both hold a decoy.
  FamilyOptions deepseek;
  deepseek.key = "sk-test-123";
  LoopbackHttpServer server(
      family_handler(ModelFamily::separate_reasoning, ScriptedModel{"void launch_k() {}\n"}, deepseek));
  OpenAiChatClient client(llm_for(server, "deepseek-reasoner"), ledger(), fast_retries());
  ChatReply reply = client.complete(hello());
  EXPECT_EQ(reply.content, "ok");
  EXPECT_NE(reply.reasoning.find(kDecoyMarker), std::string::npos) << reply.reasoning;
  EXPECT_NE(reply.reasoning.find("bound by memory traffic"), std::string::npos) << reply.reasoning;
  EXPECT_GT(reply.completion_tokens, 0);
  EXPECT_EQ(family_shape_problem(ModelFamily::separate_reasoning, server.requests(), deepseek), "");
}

TEST(SeparateReasoning, ThinkBlocksPartsAndReasoningFieldsInWholeReplies) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    switch (calls++) {
      case 0:  // a model served without a reasoning parser: <think> in the content
        return json_response(200, completion_body({{"role", "assistant"},
                                                   {"content", "<think>\nTry 256 threads.\n</think>\n\nanswer A"}}));
      case 1:  // the chat template opened the block in the prompt: only its end is in the reply
        return json_response(200, completion_body({{"role", "assistant"}, {"content", "plan\n</think>\nanswer B"}}));
      case 2:  // content as a list of parts, reasoning in `reasoning` (OpenRouter, Ollama)
        return json_response(
            200, completion_body(
                     {{"role", "assistant"},
                      {"reasoning", "short plan"},
                      {"content", {{{"type", "text"}, {"text", "answer "}}, {{"type", "text"}, {"text", "C"}}}}}));
      default:  // cut off while thinking: an unclosed block is all reasoning
        return json_response(200,
                             completion_body({{"role", "assistant"}, {"content", "<think>still going"}}, "length"));
    }
  });
  auto llm = llm_for(server, "Qwen/QwQ-32B");
  llm.stream = false;
  OpenAiChatClient client(llm, ledger(), fast_retries());
  ChatReply a = client.complete(hello());
  EXPECT_EQ(a.content, "answer A");
  EXPECT_EQ(a.reasoning, "Try 256 threads.");
  EXPECT_EQ(client.complete(hello()).content, "answer B");
  ChatReply c = client.complete(hello());
  EXPECT_EQ(c.content, "answer C");
  EXPECT_EQ(c.reasoning, "short plan");
  std::string what = error_of([&] { client.complete(hello()); });
  EXPECT_NE(what.find("on reasoning"), std::string::npos) << what;
  EXPECT_FALSE(body_of(server.requests()[0]).contains("stream"));
}

TEST(LocalServer, AReplyLimitBeyondASmallContextIsFittedToWhatIsLeft) {
  // vLLM started with --max-model-len 4096, asked for the default 32768-token reply.
  LoopbackHttpServer server([](const LoopbackRequest& r) {
    auto body = body_of(r);
    const int64_t prompt = 250, context = 4096, wanted = body["max_tokens"].get<int64_t>();
    if (prompt + wanted > context) {
      const std::string n = std::to_string(wanted);
      nlohmann::json error{{"message", "'max_tokens' or 'max_completion_tokens' is too large: " + n +
                                           ". This model's maximum context length is 4096 tokens and your request "
                                           "has 250 input tokens (" +
                                           n + " > 4096 - 250). None"},
                           {"type", "BadRequestError"},
                           {"param", nullptr},
                           {"code", 400}};
      return json_response(400, nlohmann::json{{"error", error}}.dump());
    }
    return json_response(200, completion_body({{"role", "assistant"}, {"content", "fits"}}));
  });
  OpenAiChatClient client(llm_for(server, "Qwen/Qwen2.5-Coder-7B-Instruct"), ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello(32768)).content, "fits");
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(body_of(seen[1])["max_tokens"], 4096 - 250 - 16);
}

TEST(LocalServer, APromptLongerThanTheContextIsAConfigurationErrorNamingIt) {
  LoopbackHttpServer vllm([](const LoopbackRequest&) {
    return json_response(
        400,
        R"({"object":"error","message":"This model's maximum context length is 4096 tokens. However, your request has 5210 input tokens. Please reduce the length of the input messages. None","type":"BadRequestError","param":null,"code":400})");
  });
  OpenAiChatClient a(llm_for(vllm, "Qwen/Qwen2.5-Coder-7B-Instruct"), ledger(), fast_retries());
  ChatFailure kind{};
  std::string what = error_of([&] { a.complete(hello()); }, &kind);
  EXPECT_EQ(kind, ChatFailure::configuration);
  EXPECT_NE(what.find("maximum context length is 4096"), std::string::npos) << what;
  EXPECT_NE(what.find("--max-model-len"), std::string::npos) << what;
  EXPECT_EQ(vllm.requests().size(), 1u);

  LoopbackHttpServer llama([](const LoopbackRequest&) {
    return json_response(
        400,
        R"({"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}})");
  });
  auto llm = llm_for(llama, "qwen2.5-coder");
  llm.api_key_env = "";  // llama-server without --api-key
  OpenAiChatClient b(llm, ledger(), fast_retries());
  what = error_of([&] { b.complete(hello()); }, &kind);
  EXPECT_EQ(kind, ChatFailure::configuration);
  EXPECT_NE(what.find("the prompt of 9412 tokens does not fit the model's context of 8192 tokens"), std::string::npos)
      << what;
  EXPECT_NE(what.find("--ctx-size"), std::string::npos) << what;
  EXPECT_EQ(llama.requests()[0].headers.count("authorization"), 0u);
}

TEST(LocalServer, ALlamaCppRefusalOfTheReplyLimitIsFittedToWhatItsContextLeaves) {
  // The family server refuses prompt + reply limit beyond its context, naming both sizes.
  FamilyOptions small;
  small.n_ctx = 300;
  LoopbackHttpServer llama(family_handler(ModelFamily::local, ScriptedModel{}, small));
  auto llm = llm_for(llama, "qwen2.5-coder");
  llm.api_key_env = "";
  OpenAiChatClient client(llm, ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello(32768)).content, "ok");
  auto seen = llama.requests();
  ASSERT_EQ(seen.size(), 2u);
  const int64_t prompt = estimated_prompt_tokens(body_of(seen[1]));
  EXPECT_EQ(body_of(seen[1])["max_tokens"], 300 - prompt - 16);
  EXPECT_EQ(client.context_tokens(), 300);
  EXPECT_EQ(family_shape_problem(ModelFamily::local, seen, small), "");
}

TEST(Azure, ADeploymentUrlWithApiVersionAndAnApiKeyHeader) {
  FamilyOptions azure;
  azure.key = "az-key-1";
  azure.deployment = "o3-prod";
  azure.api_version = "2024-12-01-preview";
  LoopbackHttpServer server(family_handler(ModelFamily::azure, ScriptedModel{}, azure));
  kb::config::LlmConfig llm = llm_for(server, "o3");
  llm.base_url = server.base_url() + "/openai/deployments/o3-prod?api-version=2024-12-01-preview";
  llm.api_key_header = "api-key";
  llm.api_key_env = "KB_TEST_AZURE_KEY";
  llm.extra_body.json = R"({"reasoning_effort":"high"})";
  llm.extra_headers = {{"x-ms-client-request-id", "kernelbot-test"}};
  setenv("KB_TEST_AZURE_KEY", "az-key-1", 1);
  OpenAiChatClient client(llm, ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "ok");  // streamed after Azure's prompt-filter chunk
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].headers["x-ms-client-request-id"], "kernelbot-test");
  auto body = body_of(seen[0]);
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_EQ(body["max_completion_tokens"], 500);

  llm.api_key_header = "Authorization";  // the usual mistake: a bearer token where Azure wants api-key
  OpenAiChatClient wrong(llm, ledger(), fast_retries());
  std::string what = error_of([&] { wrong.complete(hello()); });
  EXPECT_NE(what.find("Access denied due to invalid subscription key"), std::string::npos) << what;
  EXPECT_NE(what.find("[llm].api_key_header"), std::string::npos) << what;
}

TEST(PermanentErrors, BadKeyUnknownModelAndNoQuotaAreNotRetried) {
  struct Case {
    int status;
    const char* body;
    const char* expected;
  };
  const Case cases[] = {
      {401,
       R"({"error": {"message": "Incorrect API key provided: sk-test***123. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}})",
       "HTTP 401 invalid_api_key: Incorrect API key provided"},
      {404,
       R"({"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.", "type": "invalid_request_error", "param": null, "code": "model_not_found"}})",
       "The model `gpt-9` does not exist"},
      {404,
       R"({"error":{"message":"model \"llama3:70b\" not found, try pulling it first","type":"api_error","param":null,"code":null}})",
       "try pulling it first"},
      {429,
       R"({"error": {"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})",
       "You exceeded your current quota"},
  };
  for (const auto& c : cases) {
    LoopbackHttpServer server([&](const LoopbackRequest&) { return json_response(c.status, c.body); });
    OpenAiChatClient client(llm_for(server), ledger(), fast_retries());
    ChatFailure kind{};
    std::string what = error_of([&] { client.complete(hello()); }, &kind);
    EXPECT_EQ(kind, ChatFailure::configuration) << c.status;
    EXPECT_NE(what.find(c.expected), std::string::npos) << what;
    EXPECT_EQ(client.attempts(), 1) << what;
    // The same through the check before a search: a configuration error, exit 2.
    try {
      client.preflight();
      ADD_FAILURE() << "expected the check to fail";
    } catch (const kb::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
}

TEST(Preflight, OneSmallRequestAndTheServiceFailuresAreNotUsageErrors) {
  LoopbackHttpServer ok([](const LoopbackRequest&) {
    return json_response(200, completion_body({{"role", "assistant"}, {"content", "ok"}}, "stop", 12, 1));
  });
  auto ledger_used = ledger();
  OpenAiChatClient client(llm_for(ok), ledger_used, fast_retries());
  client.preflight();
  ASSERT_EQ(ok.requests().size(), 1u);
  EXPECT_EQ(body_of(ok.requests()[0])["max_tokens"], 16);
  EXPECT_EQ(ledger_used->usage().total(), 13);  // it cost tokens, and they count

  LoopbackHttpServer down([](const LoopbackRequest&) { return json_response(503, R"({"error":"overloaded"})"); });
  auto llm = llm_for(down);
  llm.max_retries = 5;
  OpenAiChatClient busy(llm, ledger(), fast_retries());
  try {
    busy.preflight();
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    FAIL() << "a service failure is not a usage error: " << e.what();
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("overloaded"), std::string::npos) << e.what();
  }
  EXPECT_EQ(down.requests().size(), 3u);  // the check retries twice at most, whatever max_retries says

  int port = 0;
  {
    LoopbackHttpServer gone([](const LoopbackRequest&) { return LoopbackResponse{}; });
    port = gone.port();
  }
  llm.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  OpenAiChatClient unreachable(llm, ledger(), RetryPolicy{});  // the real backoff: 1 s, then 2 s at most
  auto t0 = std::chrono::steady_clock::now();
  try {
    unreachable.preflight();
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    FAIL() << "an unreachable service is not a usage error: " << e.what();
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Couldn't connect"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}
