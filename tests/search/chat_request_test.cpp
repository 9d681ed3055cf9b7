// How requests are written for each model family and endpoint, and how providers' error bodies
// are read: the pure parts of the client, on the exact shapes providers document.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/llm/chat_request_body.h"
#include "search/llm/provider_error.h"

using namespace kb::search;

namespace {

kb::config::LlmConfig llm_with(const std::string& base_url, const std::string& model) {
  kb::config::LlmConfig llm;
  llm.provider = "openai-compatible";
  llm.base_url = base_url;
  llm.model = model;
  return llm;
}

ChatRequest request() {
  ChatRequest r;
  r.messages = {{"system", "You optimize CUDA."}, {"user", "Make it faster."}};
  r.temperature = 0.3;
  return r;
}

ProviderError error_of(long status, const std::string& body) {
  kb::HttpResponse response;
  response.status = status;
  response.body = body;
  return read_provider_error(response);
}

}  // namespace

TEST(ChatRequest, ReasoningFamiliesAreRecognizedBehindGatewayPrefixes) {
  for (const char* m :
       {"o1", "o1-mini", "o3", "o3-mini-2025-01-31", "o4-mini", "gpt-5", "gpt-5-mini", "openai/o3", "azure/gpt-5-nano"})
    EXPECT_TRUE(is_openai_reasoning_model(m)) << m;
  for (const char* m : {"gpt-4o", "gpt-4.1", "deepseek-reasoner", "Qwen/Qwen3-32B", "llama3.1:8b", "omni", "o"})
    EXPECT_FALSE(is_openai_reasoning_model(m)) << m;
}

TEST(ChatRequest, AutoChoosesTheTokenParameterAndTemperaturePerFamily) {
  ShapeChoice reasoning = initial_shape(llm_with("https://gateway.example/v1", "o3-mini"));
  EXPECT_TRUE(reasoning.max_completion_tokens);
  EXPECT_FALSE(reasoning.temperature);
  ShapeChoice openai = initial_shape(llm_with("https://api.openai.com/v1", "gpt-4o"));
  EXPECT_TRUE(openai.max_completion_tokens);  // OpenAI's own API: for every model
  EXPECT_TRUE(openai.temperature);
  ShapeChoice local = initial_shape(llm_with("http://localhost:8000/v1", "Qwen/Qwen3-32B"));
  EXPECT_FALSE(local.max_completion_tokens);
  EXPECT_TRUE(local.temperature);
  EXPECT_TRUE(local.stream);

  auto fixed = llm_with("https://api.openai.com/v1", "o3");
  fixed.token_parameter = "max_tokens";
  fixed.send_temperature = "true";
  fixed.stream = false;
  ShapeChoice explicit_choice = initial_shape(fixed);
  EXPECT_FALSE(explicit_choice.max_completion_tokens);
  EXPECT_TRUE(explicit_choice.temperature);
  EXPECT_FALSE(explicit_choice.stream);
  EXPECT_FALSE(explicit_choice.stream_options);
}

TEST(ChatRequest, TheBodyCarriesTheShapeAndExtraBodyMergedOverIt) {
  auto llm = llm_with("http://localhost:8000/v1", "Qwen/Qwen3-32B");
  llm.extra_body.json = R"({"chat_template_kwargs":{"enable_thinking":false},"top_p":0.9,"temperature":0.6})";
  auto body = request_body(request(), llm, initial_shape(llm), 4096);
  EXPECT_EQ(body["model"], "Qwen/Qwen3-32B");
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.6);  // extra_body wins
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["chat_template_kwargs"]["enable_thinking"], false);
  EXPECT_DOUBLE_EQ(body["top_p"].get<double>(), 0.9);
  ASSERT_EQ(body["messages"].size(), 2u);

  ShapeChoice o1_mini{true, false, false, false, false};
  body = request_body(request(), llm, o1_mini, 100);
  EXPECT_EQ(body["max_completion_tokens"], 100);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("stream"));
  ASSERT_EQ(body["messages"].size(), 1u);  // the system message folded into the user's
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "You optimize CUDA.\n\nMake it faster.");
}

TEST(ChatRequest, TheUrlKeepsAQueryStringAfterThePath) {
  EXPECT_EQ(chat_completions_url("https://api.openai.com/v1/"), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://res.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21"),
            "https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21");
  EXPECT_EQ(chat_completions_url("http://gw.local/v1/?x=1&y=2"), "http://gw.local/v1/chat/completions?x=1&y=2");
}

TEST(ChatRequest, TheKeyGoesInTheConfiguredHeader) {
  auto llm = llm_with("https://api.openai.com/v1", "gpt-4o");
  llm.extra_headers = {{"X-Title", "kernelbot"}};
  auto headers = request_headers(llm, "sk-1");
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ(headers[1], (std::pair<std::string, std::string>{"Authorization", "Bearer sk-1"}));
  EXPECT_EQ(headers[2], (std::pair<std::string, std::string>{"X-Title", "kernelbot"}));
  llm.api_key_header = "api-key";
  EXPECT_EQ(request_headers(llm, "az-1")[1], (std::pair<std::string, std::string>{"api-key", "az-1"}));
  EXPECT_EQ(request_headers(llm, "").size(), 2u);  // no key, no key header
}

// The field of the feature a refusal is about, "" when it is no refusal of one.
std::string refused_field(const ProviderError& error) {
  const auto feature = refused_feature(error);
  return feature ? std::string(provider_fact(*feature).field) : "";
}

TEST(ChatRequest, ARefusedParameterIsLearnedOnceUnlessTheConfigFixedIt) {
  auto llm = llm_with("http://gw/v1", "prod-deployment");
  RequestShape shape(initial_shape(llm));
  const ShapeChoice sent = shape.now();
  std::string what;
  EXPECT_EQ(shape.adapt(sent, RequestFeature::max_tokens, llm, what), RequestShape::Adaptation::learned);
  EXPECT_EQ(what, "sends max_completion_tokens instead of max_tokens");
  EXPECT_TRUE(shape.now().max_completion_tokens);
  // A request sent before the change, refused the same way: sent again, nothing new learned.
  EXPECT_EQ(shape.adapt(sent, RequestFeature::max_tokens, llm, what), RequestShape::Adaptation::already_learned);
  EXPECT_EQ(shape.adapt(sent, RequestFeature::temperature, llm, what), RequestShape::Adaptation::learned);
  EXPECT_FALSE(shape.now().temperature);
  EXPECT_EQ(shape.adapt(shape.now(), RequestFeature::temperature, llm, what),
            RequestShape::Adaptation::none);  // not sent

  llm.token_parameter = "max_tokens";
  llm.send_temperature = "true";
  RequestShape fixed(initial_shape(llm));
  EXPECT_EQ(fixed.adapt(fixed.now(), RequestFeature::max_tokens, llm, what), RequestShape::Adaptation::none);
  EXPECT_EQ(fixed.adapt(fixed.now(), RequestFeature::temperature, llm, what), RequestShape::Adaptation::none);
  EXPECT_EQ(fixed.adapt(fixed.now(), RequestFeature::stream_options, llm, what), RequestShape::Adaptation::learned);
}

TEST(ProviderError, OpenAisUnsupportedParameterAndValueName) {
  auto tokens = error_of(
      400,
      R"({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})");
  EXPECT_EQ(tokens.code, "unsupported_parameter");
  EXPECT_EQ(refused_field(tokens), "max_tokens");
  tokens.param = "";  // from the words alone: the first parameter named
  EXPECT_EQ(refused_field(tokens), "max_tokens");
  auto temperature = error_of(
      400,
      R"({"error": {"message": "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}})");
  EXPECT_EQ(refused_field(temperature), "temperature");
  auto azure = error_of(
      400,
      R"({"error":{"message":"Unrecognized request argument supplied: max_completion_tokens","type":"invalid_request_error","param":null,"code":null}})");
  EXPECT_EQ(refused_field(azure), "max_completion_tokens");
  auto system = error_of(
      400,
      R"({"error": {"message": "Unsupported value: 'messages[0].role' does not support 'system' with this model.", "type": "invalid_request_error", "param": "messages[0].role", "code": "unsupported_value"}})");
  EXPECT_EQ(refused_field(system), "system_role");
  auto other = error_of(
      400,
      R"({"error": {"message": "Invalid 'messages': empty array.", "type": "invalid_request_error", "param": "messages", "code": "empty_array"}})");
  EXPECT_EQ(refused_field(other), "");
}

TEST(ProviderError, ContextOverflowsInEachServersWords) {
  // vLLM (recent): the reply's limit is what does not fit.
  auto vllm = error_of(
      400,
      R"({"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 32768. This model's maximum context length is 4096 tokens and your request has 250 input tokens (32768 > 4096 - 250). None","type":"BadRequestError","param":null,"code":400}})");
  auto o = context_overflow(vllm);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->context, 4096);
  EXPECT_EQ(o->prompt, 250);
  EXPECT_EQ(refused_field(vllm), "");  // too large is not unsupported
  // vLLM (older, {"object": "error"} at the top).
  auto old = error_of(
      400,
      R"({"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 33000 tokens (232 in the messages, 32768 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400})");
  o = context_overflow(old);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->context, 4096);
  EXPECT_EQ(o->prompt, 232);
  // llama.cpp server: the sizes as fields.
  auto llama = error_of(
      400,
      R"({"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}})");
  o = context_overflow(llama);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->context, 8192);
  EXPECT_EQ(o->prompt, 9412);
  // OpenAI.
  auto openai = error_of(
      400,
      R"({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})");
  o = context_overflow(openai);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->prompt, 130512);
  EXPECT_FALSE(context_overflow(error_of(401, R"({"error":{"message":"maximum context length"}})")));
}

TEST(ProviderError, ReadsEveryErrorShapeAndQuota) {
  auto ollama = error_of(
      404,
      R"({"error":{"message":"model \"llama3:70b\" not found, try pulling it first","type":"api_error","param":null,"code":null}})");
  EXPECT_EQ(ollama.message, "model \"llama3:70b\" not found, try pulling it first");
  EXPECT_EQ(error_of(500, R"({"error":"llama runner process has terminated"})").message,
            "llama runner process has terminated");
  EXPECT_EQ(error_of(422, R"({"detail":"Not authenticated"})").message, "Not authenticated");
  EXPECT_EQ(error_of(502, "<html>Bad Gateway</html>\n").message, "<html>Bad Gateway</html>");
  auto quota = error_of(
      429,
      R"({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})");
  EXPECT_TRUE(is_insufficient_quota(quota));
  EXPECT_FALSE(is_insufficient_quota(
      error_of(429,
               R"({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}})")));
}
