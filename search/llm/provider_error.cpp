#include "search/llm/provider_error.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/text.h"

namespace kb::search {
namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return "";
  const auto& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return "";
}

std::optional<int64_t> integer_of(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number_integer()) return j[key].get<int64_t>();
  return std::nullopt;
}

void read_fields(const nlohmann::json& e, ProviderError& out) {
  out.message = text_of(e, "message");
  out.type = text_of(e, "type");
  out.code = text_of(e, "code");
  out.param = text_of(e, "param");
  out.n_ctx = integer_of(e, "n_ctx");
  out.n_prompt_tokens = integer_of(e, "n_prompt_tokens");
}

std::optional<int64_t> first_number(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  if (std::regex_search(text, m, pattern)) return std::stoll(m[1].str());
  return std::nullopt;
}

}  // namespace

ProviderError read_provider_error(const HttpResponse& response) {
  ProviderError out;
  out.status = response.status;
  auto j = nlohmann::json::parse(response.body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (j.contains("error") && j["error"].is_object()) read_fields(j["error"], out);
    else if (j.contains("error") && j["error"].is_string()) out.message = j["error"].get<std::string>();
    else if (j.value("object", "") == "error") read_fields(j, out);
    else if (j.contains("detail") && j["detail"].is_string()) out.message = j["detail"].get<std::string>();
    else if (j.contains("message") && j["message"].is_string()) out.message = j["message"].get<std::string>();
  }
  if (out.message.empty()) {
    out.message = response.body.substr(0, 300);
    while (!out.message.empty() && std::isspace(static_cast<unsigned char>(out.message.back()))) out.message.pop_back();
  }
  return out;
}

std::optional<RequestFeature> refused_feature(const ProviderError& error) {
  if (error.status != 400 && error.status != 422) return std::nullopt;
  const std::string message = lower(error.message);
  const std::string code = lower(error.code);
  static const std::regex refusal(
      R"(unsupported (parameter|value)|not supported|unrecognized (request )?argument|unknown (parameter|field|argument)|extra (inputs|fields) (are )?not permitted|not allowed|does not support|is not available)");
  const bool refused = code == "unsupported_parameter" || code == "unsupported_value" ||
                       std::regex_search(message, refusal);
  if (!refused) return std::nullopt;
  const auto named = [](const ProviderFact& fact) { return fact.feature != RequestFeature::system_role; };
  for (const auto& fact : provider_facts())
    if (named(fact) && error.param == fact.field) return fact.feature;
  // o1-mini and its kind: "Unsupported value: 'messages[0].role' does not support 'system' ...".
  if ((error.param.starts_with("messages") || message.find("'messages[") != std::string::npos) &&
      message.find("system") != std::string::npos)
    return RequestFeature::system_role;
  // Without `param`: the field the message names first, quoted or not ("Unsupported parameter:
  // 'max_tokens' ... Use 'max_completion_tokens' instead." is about max_tokens).
  std::optional<RequestFeature> first;
  size_t first_at = std::string::npos;
  for (const auto& fact : provider_facts()) {
    if (!named(fact)) continue;
    std::smatch m;
    if (std::regex_search(message, m, std::regex("(^|[^a-z_])(" + std::string(fact.field) + ")([^a-z_]|$)")) &&
        static_cast<size_t>(m.position(2)) < first_at) {
      first_at = static_cast<size_t>(m.position(2));
      first = fact.feature;
    }
  }
  return first;
}

bool is_insufficient_quota(const ProviderError& error) {
  return error.code == "insufficient_quota" || error.type == "insufficient_quota";
}

std::optional<ContextOverflow> context_overflow(const ProviderError& error) {
  if (error.status != 400 && error.status != 413 && error.status != 422) return std::nullopt;
  const std::string message = lower(error.message);
  const bool overflow = error.code == "context_length_exceeded" || error.type == "exceed_context_size_error" ||
                        message.find("maximum context length") != std::string::npos ||
                        message.find("exceeds the available context size") != std::string::npos ||
                        message.find("context length exceeded") != std::string::npos ||
                        message.find("context window") != std::string::npos;
  if (!overflow) return std::nullopt;
  ContextOverflow out;
  static const std::regex context_re(R"(maximum context length (?:is |of )?(\d+))");
  static const std::regex llama_context_re(R"(context size \((\d+) tokens\))");
  out.context = error.n_ctx ? error.n_ctx : first_number(message, context_re);
  if (!out.context) out.context = first_number(message, llama_context_re);
  // The prompt's size, in each server's words: "(232 in the messages, ...)" (vLLM, OpenAI), "has
  // 2778 input tokens" (vLLM), "resulted in 130000 tokens" (OpenAI), "request (9412 tokens)"
  // (llama.cpp), "1000 tokens from the input" (SGLang).
  static const std::regex prompt_res[] = {std::regex(R"(\((\d+) in the messages)"),
                                          std::regex(R"(has (\d+) input tokens)"),
                                          std::regex(R"(messages resulted in (\d+) tokens)"),
                                          std::regex(R"(request \((\d+) tokens\))"),
                                          std::regex(R"((\d+) tokens from the input)")};
  out.prompt = error.n_prompt_tokens;
  for (const auto& re : prompt_res)
    if (!out.prompt) out.prompt = first_number(message, re);
  return out;
}

}  // namespace kb::search
