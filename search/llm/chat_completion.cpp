#include "search/llm/chat_completion.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "search/llm/reply_parser.h"

namespace kb::search {
namespace {

// A message's text: a string, or the text of a list of parts ([{"type": "text", "text": ...}]).
std::string text_of(const nlohmann::json& message, const char* key) {
  if (!message.contains(key)) return "";
  const auto& v = message[key];
  if (v.is_string()) return v.get<std::string>();
  std::string out;
  if (v.is_array())
    for (const auto& part : v) {
      if (part.is_string()) out += part.get<std::string>();
      else if (part.is_object() && part.value("type", "text") == "text" && part.contains("text") &&
               part["text"].is_string())
        out += part["text"].get<std::string>();
    }
  return out;
}

// `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning` (OpenRouter, newer vLLM, Ollama).
std::string reasoning_of(const nlohmann::json& message) {
  std::string out = text_of(message, "reasoning_content");
  if (out.empty()) out = text_of(message, "reasoning");
  return out;
}

void read_usage(const nlohmann::json& j, CompletionParts& parts) {
  if (!j.contains("usage") || !j["usage"].is_object()) return;
  const auto& u = j["usage"];
  if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer()) {
    parts.prompt_tokens = u["prompt_tokens"].get<int64_t>();
    parts.completion_tokens = u.contains("completion_tokens") && u["completion_tokens"].is_number_integer()
                                  ? u["completion_tokens"].get<int64_t>()
                                  : 0;
  }
}

std::string error_text(const nlohmann::json& j) {
  if (j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_string()) return e.get<std::string>();
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    return e.dump();
  }
  if (j.value("object", "") == "error") return j.value("message", j.dump());
  return "";
}

}  // namespace

CompletionParts parse_completion(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw ChatError("the reply is not JSON: " + body.substr(0, 200));
  if (auto error = error_text(j); !error.empty()) throw ChatError("the server answered with an error: " + error);
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() || !j["choices"][0].is_object())
    throw ChatError("the reply has no choices: " + body.substr(0, 200));
  const auto& choice = j["choices"][0];
  if (!choice.contains("message") || !choice["message"].is_object())
    throw ChatError("the reply's first choice has no message");
  const auto& m = choice["message"];
  CompletionParts parts;
  parts.content = text_of(m, "content");
  parts.reasoning = reasoning_of(m);
  parts.refusal = text_of(m, "refusal");
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    parts.finish_reason = choice["finish_reason"].get<std::string>();
  if (j.contains("model") && j["model"].is_string()) parts.model = j["model"].get<std::string>();
  read_usage(j, parts);
  return parts;
}

void CompletionStream::feed(std::string_view bytes) {
  pending_.append(bytes);
  for (size_t end; (end = pending_.find('\n')) != std::string::npos;) {
    std::string text = pending_.substr(0, end);
    pending_.erase(0, end + 1);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    line(text);
  }
}

void CompletionStream::line(std::string_view text) {
  if (text.empty()) {  // a blank line ends an event
    if (!data_.empty()) event(std::exchange(data_, ""));
    return;
  }
  if (text.front() == ':') return;         // a comment: keep-alives (": OPENROUTER PROCESSING")
  if (!text.starts_with("data:")) return;  // event:, id:, retry: say nothing we need
  text.remove_prefix(5);
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (!data_.empty()) data_ += "\n";
  data_ += text;
}

void CompletionStream::event(const std::string& data) {
  if (data == "[DONE]") {
    done_ = true;
    return;
  }
  auto j = nlohmann::json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;  // not a chunk: ignored, as OpenAI's SDK does
  ++events_;
  if (auto error = error_text(j); !error.empty()) error_ = error;
  if (j.contains("model") && j["model"].is_string()) parts_.model = j["model"].get<std::string>();
  read_usage(j, parts_);  // the last chunk (choices: []) when include_usage; every chunk on some servers
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) return;
  const auto& choice = j["choices"][0];
  if (!choice.is_object()) return;
  if (choice.contains("delta") && choice["delta"].is_object()) {
    const auto& d = choice["delta"];
    parts_.content += text_of(d, "content");
    parts_.reasoning += reasoning_of(d);
    parts_.refusal += text_of(d, "refusal");
  }
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    parts_.finish_reason = choice["finish_reason"].get<std::string>();
}

CompletionParts CompletionStream::parts() const {
  CompletionStream rest = *this;  // the unterminated tail too: a server that closes without a blank line
  if (!rest.pending_.empty()) rest.line(std::exchange(rest.pending_, ""));
  if (!rest.data_.empty()) rest.event(std::exchange(rest.data_, ""));
  if (!rest.error_.empty()) throw ChatError("the stream ended with an error: " + rest.error_);
  return rest.parts_;
}

int64_t estimated_prompt_tokens(const ChatRequest& request) {
  size_t chars = 0;
  for (const auto& m : request.messages) chars += m.content.size();
  return static_cast<int64_t>(chars / 4 + 1);
}

ChatReply to_reply(CompletionParts parts, const ChatRequest& request) {
  ChatReply reply;
  ReasoningSplit split = split_reasoning(parts.content);
  reply.content = std::move(split.answer);
  reply.reasoning = parts.reasoning;
  if (!split.reasoning.empty()) reply.reasoning += (reply.reasoning.empty() ? "" : "\n") + split.reasoning;
  reply.refusal = std::move(parts.refusal);
  reply.finish_reason = std::move(parts.finish_reason);
  reply.model = std::move(parts.model);
  if (parts.prompt_tokens) {
    reply.prompt_tokens = *parts.prompt_tokens;
    reply.completion_tokens = parts.completion_tokens.value_or(0);
  } else {
    // Some servers send no usage; about 4 characters per token keeps the budget honest.
    reply.prompt_tokens = estimated_prompt_tokens(request);
    reply.completion_tokens = static_cast<int64_t>((reply.content.size() + reply.reasoning.size()) / 4 + 1);
    reply.usage_estimated = true;
  }
  return reply;
}

std::string unusable_reply(const ChatReply& reply, int64_t max_tokens) {
  const bool no_answer = reply.content.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!reply.refusal.empty() && no_answer) return "the model refused: " + reply.refusal;
  if (reply.finish_reason == "length" && no_answer)
    return fmt::format("the model spent the whole reply limit of {} tokens{} before writing any answer (finish_reason "
                       "\"length\"): raise [llm].max_tokens_per_reply, or ask for less reasoning ([llm.extra_body] "
                       "reasoning_effort = \"low\")",
                       max_tokens, reply.reasoning.empty() ? "" : " on reasoning");
  return "";
}

}  // namespace kb::search
