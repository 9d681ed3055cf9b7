#include "search/llm/openai_chat_client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "common/http_client.h"
#include "common/secret_redactor.h"
#include "core/errors.h"

namespace kb::search {
namespace {

// The server's own error message ({"error": {"message": ...}}), or the start of the body.
std::string server_message(const HttpResponse& response) {
  auto j = nlohmann::json::parse(response.body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  return response.body.substr(0, 300);
}

// Parses a chat-completions reply; throws ChatError when it is not one.
ChatReply parse_reply(const std::string& body, const ChatRequest& request) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw ChatError("the reply is not JSON: " + body.substr(0, 200));
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() || !j["choices"][0].is_object())
    throw ChatError("the reply has no choices: " + body.substr(0, 200));
  const auto& choice = j["choices"][0];
  ChatReply reply;
  if (choice.contains("message") && choice["message"].is_object()) {
    const auto& m = choice["message"];
    if (m.contains("content") && m["content"].is_string()) reply.content = m["content"].get<std::string>();
  } else {
    throw ChatError("the reply's first choice has no message");
  }
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    reply.finish_reason = choice["finish_reason"].get<std::string>();
  if (j.contains("model") && j["model"].is_string()) reply.model = j["model"].get<std::string>();
  const auto* usage = j.contains("usage") && j["usage"].is_object() ? &j["usage"] : nullptr;
  if (usage && (*usage).contains("prompt_tokens") && (*usage)["prompt_tokens"].is_number_integer()) {
    reply.prompt_tokens = (*usage)["prompt_tokens"].get<int64_t>();
    if ((*usage).contains("completion_tokens") && (*usage)["completion_tokens"].is_number_integer())
      reply.completion_tokens = (*usage)["completion_tokens"].get<int64_t>();
  } else {
    // Some servers omit usage; about 4 characters per token keeps the budget honest.
    size_t prompt_chars = 0;
    for (const auto& m : request.messages) prompt_chars += m.content.size();
    reply.prompt_tokens = static_cast<int64_t>(prompt_chars / 4 + 1);
    reply.completion_tokens = static_cast<int64_t>(reply.content.size() / 4 + 1);
    reply.usage_estimated = true;
  }
  return reply;
}

}  // namespace

OpenAiChatClient::OpenAiChatClient(config::LlmConfig llm, std::shared_ptr<TokenLedger> ledger, RetryPolicy policy)
    : llm_(std::move(llm)), ledger_(std::move(ledger)), policy_(policy) {
  while (!llm_.base_url.empty() && llm_.base_url.back() == '/') llm_.base_url.pop_back();
  if (!llm_.api_key_env.empty()) {
    const char* key = std::getenv(llm_.api_key_env.c_str());
    if (!key || !*key)
      throw UsageError(fmt::format(
          "the environment variable {} ([llm].api_key_env) is not set: export the API key for {} in it, or set "
          "api_key_env = \"\" for a server that needs no key",
          llm_.api_key_env, llm_.base_url));
    api_key_ = key;
    register_secret(api_key_);  // whatever its variable is called, no log or prompt shows it
  }
}

std::string OpenAiChatClient::describe() const { return llm_.model + " at " + llm_.base_url; }

int64_t OpenAiChatClient::attempts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return attempts_;
}

double OpenAiChatClient::next_jitter() {
  std::lock_guard<std::mutex> lock(mutex_);
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  return static_cast<double>(jitter_state_ >> 11) / 9007199254740992.0;
}

ChatReply OpenAiChatClient::complete(const ChatRequest& request) {
  struct Slot {
    std::counting_semaphore<64>& s;
    explicit Slot(std::counting_semaphore<64>& sem) : s(sem) { s.acquire(); }
    ~Slot() { s.release(); }
  } slot(in_flight_);

  std::string last_error;
  const int64_t attempts = 1 + std::max<int64_t>(0, llm_.max_retries);
  for (int64_t attempt = 0; attempt < attempts; ++attempt) {
    int64_t max_tokens = ledger_->admit(request.max_tokens);  // throws BudgetExhausted
    nlohmann::json body{{"model", llm_.model}, {"temperature", request.temperature}, {"max_tokens", max_tokens}};
    body["messages"] = nlohmann::json::array();
    for (const auto& m : request.messages) body["messages"].push_back({{"role", m.role}, {"content", m.content}});
    HttpRequest http;
    http.method = "POST";
    http.url = llm_.base_url + "/chat/completions";
    http.headers = {{"Content-Type", "application/json"}};
    if (!api_key_.empty()) http.headers.emplace_back("Authorization", "Bearer " + api_key_);
    http.body = body.dump();
    http.timeout_s = llm_.timeout_s;
    http.connect_timeout_s = std::min(10.0, llm_.timeout_s);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++attempts_;
    }
    std::optional<double> server_wait;
    try {
      HttpResponse response = http_send(http);
      if (response.status == 200) {
        try {
          ChatReply reply = parse_reply(response.body, request);
          ledger_->record(reply.prompt_tokens, reply.completion_tokens);
          return reply;
        } catch (const ChatError& e) {
          last_error = std::string("malformed reply: ") + e.what();
        }
      } else if (response.status == 429 || response.status >= 500) {
        last_error = fmt::format("HTTP {}: {}", response.status, server_message(response));
        server_wait = retry_after_seconds(response);
        if (server_wait && *server_wait > policy_.max_server_wait_s)
          throw ChatError(fmt::format("{} asks to wait {:.0f} s before retrying ({}); giving up", http.url,
                                      *server_wait, last_error));
      } else {
        // 400 (bad request), 401 (bad key), 404 (unknown model): retrying cannot help.
        throw ChatError(fmt::format("{} answered HTTP {}: {}", http.url, response.status, server_message(response)));
      }
    } catch (const HttpTransportError& e) {
      last_error = e.timed_out ? fmt::format("no reply within [llm].timeout_s = {:g} s", llm_.timeout_s) : e.what();
    }
    if (attempt + 1 < attempts) {
      double delay = backoff_delay_s(static_cast<int>(attempt), policy_.base_delay_s, policy_.max_delay_s, server_wait,
                                     next_jitter());
      spdlog::warn("llm {} {}: {}; retry {}/{} in {:.1f} s", request.step, request.key, last_error, attempt + 1,
                   attempts - 1, delay);
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    }
  }
  throw ChatError(fmt::format("the model did not answer after {} attempts: {}", attempts, last_error));
}

}  // namespace kb::search
