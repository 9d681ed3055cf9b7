#include "search/llm/chat_request_body.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <regex>

#include "common/text.h"

namespace kb::search {
namespace {

std::string host_of(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of(":/?", start);
  return lower(url.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

// Turns one choice off when the server refused it, unless the config chose it explicitly.
RequestShape::Adaptation turn_off(std::atomic<bool>& flag, bool sent, bool allowed, const std::string& said,
                                  std::string& what) {
  using enum RequestShape::Adaptation;
  if (!sent) return none;  // the request did not have what is refused: nothing to learn
  if (!allowed) return none;
  if (!flag.exchange(false)) return already_learned;
  what = said;
  return learned;
}

}  // namespace

RequestShape::RequestShape(const ShapeChoice& start)
    : max_completion_tokens_(start.max_completion_tokens),
      temperature_(start.temperature),
      stream_(start.stream),
      stream_options_(start.stream_options),
      system_role_(start.system_role) {}

ShapeChoice RequestShape::now() const {
  return {max_completion_tokens_.load(), temperature_.load(), stream_.load(), stream_options_.load(),
          system_role_.load()};
}

RequestShape::Adaptation RequestShape::adapt(const ShapeChoice& sent, RequestFeature refused,
                                             const config::LlmConfig& llm, std::string& what) {
  using enum Adaptation;
  const std::string said(provider_fact(refused).adaptation);
  switch (refused) {
    case RequestFeature::max_tokens:
    case RequestFeature::max_completion_tokens: {
      const bool refused_completion = refused == RequestFeature::max_completion_tokens;
      if (sent.max_completion_tokens != refused_completion || llm.token_parameter != "auto") return none;
      if (max_completion_tokens_.exchange(!refused_completion) == !refused_completion) return already_learned;
      what = said;
      return learned;
    }
    case RequestFeature::temperature:
      return turn_off(temperature_, sent.temperature, llm.send_temperature == "auto", said, what);
    case RequestFeature::stream_options:
      return turn_off(stream_options_, sent.stream && sent.stream_options, true, said, what);
    case RequestFeature::stream: return turn_off(stream_, sent.stream, true, said, what);
    case RequestFeature::system_role: return turn_off(system_role_, sent.system_role, true, said, what);
  }
  return none;
}

bool is_openai_reasoning_model(const std::string& model) {
  std::string name = lower(model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1));
  static const std::regex family(R"(^(o[1-9]([-_.].*)?|gpt-5([-_.].*)?)$)");
  return std::regex_match(name, family);
}

ShapeChoice initial_shape(const config::LlmConfig& llm) {
  const bool reasoning = is_openai_reasoning_model(llm.model);
  ShapeChoice shape;
  // OpenAI's own API takes max_completion_tokens for every model (max_tokens is deprecated there).
  shape.max_completion_tokens = llm.token_parameter == "max_completion_tokens" ||
                                (llm.token_parameter == "auto" &&
                                 (reasoning || host_of(llm.base_url) == "api.openai.com"));
  shape.temperature = llm.send_temperature == "true" || (llm.send_temperature == "auto" && !reasoning);
  shape.stream = llm.stream;
  shape.stream_options = llm.stream;
  return shape;
}

std::shared_ptr<RequestShape> request_shape_for(const config::LlmConfig& llm) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<RequestShape>> learned;
  const std::string key = chat_completions_url(llm.base_url) + "\n" + llm.model + "\n" + llm.token_parameter + "\n" +
                          llm.send_temperature + "\n" + (llm.stream ? "stream" : "whole");
  std::lock_guard<std::mutex> lock(mutex);
  auto& shape = learned[key];
  if (!shape) shape = std::make_shared<RequestShape>(initial_shape(llm));
  return shape;
}

std::string chat_completions_url(const std::string& base_url) {
  size_t query = base_url.find('?');
  std::string path = base_url.substr(0, query);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path + "/chat/completions" + (query == std::string::npos ? "" : base_url.substr(query));
}

std::vector<std::pair<std::string, std::string>> request_headers(const config::LlmConfig& llm,
                                                                 const std::string& api_key) {
  std::vector<std::pair<std::string, std::string>> headers{{"Content-Type", "application/json"}};
  if (!api_key.empty())
    headers.emplace_back(llm.api_key_header,
                         lower(llm.api_key_header) == "authorization" ? "Bearer " + api_key : api_key);
  for (const auto& [name, value] : llm.extra_headers) headers.emplace_back(name, value);
  return headers;
}

nlohmann::json request_body(const ChatRequest& request, const config::LlmConfig& llm, const ShapeChoice& shape,
                            int64_t max_tokens) {
  nlohmann::json body{{"model", llm.model}};
  body["messages"] = nlohmann::json::array();
  std::string folded;  // system text for a model that takes no system message
  for (const auto& m : request.messages) {
    if (m.role == "system" && !shape.system_role) {
      folded += m.content + "\n\n";
      continue;
    }
    std::string content = m.content;
    if (m.role == "user" && !folded.empty()) content = std::exchange(folded, "") + content;
    body["messages"].push_back({{"role", m.role}, {"content", content}});
  }
  body[shape.max_completion_tokens ? "max_completion_tokens" : "max_tokens"] = max_tokens;
  if (shape.temperature) body["temperature"] = request.temperature;
  if (shape.stream) {
    body["stream"] = true;
    if (shape.stream_options) body["stream_options"] = {{"include_usage", true}};
  }
  auto extra = nlohmann::json::parse(llm.extra_body.json, nullptr, false);
  if (extra.is_object()) body.update(extra);
  return body;
}

}  // namespace kb::search
