#include "search/llm/openai_chat_client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "common/secret_redactor.h"
#include "core/errors.h"
#include "search/llm/chat_completion.h"
#include "search/llm/provider_error.h"

namespace kb::search {
namespace {

// Requests resent in another shape or with a smaller token limit, at most: every refusal a
// server can make of one request, with room to spare, and never a loop.
constexpr int kMaxRewrites = 6;
// Tokens kept free when the token limit is fitted to the context: servers count the chat
// template's own tokens a little differently.
constexpr int64_t kContextMargin = 16;
// The least reply limit a known context must leave a request: a kernel's file and a few words.
constexpr int64_t kLeastReplyTokens = 1024;
// Attempts of one request that may end in silence (no reply within [llm].timeout_s): an endpoint
// that accepted the request and said nothing twice will not answer a third time, and retrying it
// max_retries times would hold a run silent for (1 + max_retries) x timeout_s.
constexpr int kMaxSilentAttempts = 2;
// How often the log says what a request still waits for, after the first note.
constexpr double kStillWaitingEveryS = 10;

struct Slot {
  std::counting_semaphore<1024>& s;
  explicit Slot(std::counting_semaphore<1024>& sem) : s(sem) { s.acquire(); }
  ~Slot() { s.release(); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

OpenAiChatClient::OpenAiChatClient(const config::LlmConfig& llm, std::shared_ptr<TokenLedger> ledger,
                                   RetryPolicy policy)
    : llm_(llm),
      url_(chat_completions_url(llm.base_url)),
      ledger_(std::move(ledger)),
      shape_(request_shape_for(llm)),
      policy_(policy),
      in_flight_(std::clamp<std::ptrdiff_t>(llm.concurrency, 1, 1024)) {
  if (llm_.context_tokens > 0) context_tokens_ = llm_.context_tokens;
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

std::optional<int64_t> OpenAiChatClient::context_tokens() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return context_tokens_;
}

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
  ChatReply reply = exchange(request, llm_.max_retries);
  if (std::string why = unusable_reply(reply, request.max_tokens); !why.empty())
    throw ChatError(why, ChatFailure::answer);
  return reply;
}

void OpenAiChatClient::preflight() {
  ChatRequest probe;
  probe.step = "preflight";
  probe.key = "check";
  probe.messages = {{"system", "You check that this endpoint answers."}, {"user", "Reply with the word: ok"}};
  probe.temperature = llm_.temperature;
  probe.max_tokens = 16;
  const auto t0 = std::chrono::steady_clock::now();
  // One [llm].timeout_s for the whole check, retries included: a server that accepts and never
  // answers holds the run that long, once, and the log says what it waits for.
  spdlog::info("checking that {} answers (waiting up to [llm].timeout_s = {:g} s)", describe(), llm_.timeout_s);
  try {
    exchange(probe, std::min<int64_t>(llm_.max_retries, 2),
             t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(llm_.timeout_s)));
  } catch (const ChatError& e) {
    std::string what = fmt::format("the model did not answer kernelbot's check request ({}): {}", describe(), e.what());
    if (e.kind == ChatFailure::configuration) throw UsageError(what);
    throw Error(what);
  }
  spdlog::info("{} answered the check request in {:.1f} s", describe(), seconds_since(t0));
}

HttpRequest OpenAiChatClient::http_request(const ChatRequest& request, const ShapeChoice& shape, int64_t max_tokens,
                                           CompletionStream& stream) const {
  HttpRequest http;
  http.method = "POST";
  http.url = url_;
  http.headers = request_headers(llm_, api_key_);
  http.body = request_body(request, llm_, shape, max_tokens).dump();
  http.timeout_s = llm_.timeout_s;
  http.connect_timeout_s = std::min(10.0, llm_.timeout_s);
  // A model may think for a while: the log says what kernelbot is waiting for meanwhile, first
  // within half the timeout (so even a short one is never silent), then every few seconds.
  http.still_waiting_after_s = std::min(5.0, llm_.timeout_s / 2);
  http.still_waiting_every_s = kStillWaitingEveryS;
  http.on_still_waiting = [this, step = request.step, key = request.key, &stream](double waited_s) {
    if (stream.text_chars() > 0)
      spdlog::info("llm {} {}: {} is answering ({} characters in {:.0f} s)", step, key, describe(), stream.text_chars(),
                   waited_s);
    else
      spdlog::info("llm {} {}: waiting for {} to answer ({:.0f} s so far; [llm].timeout_s = {:g} s)", step, key,
                   describe(), waited_s, llm_.timeout_s);
  };
  if (shape.stream) {
    // A reasoning model may write for many minutes: only silence is a timeout.
    http.idle_timeout_s = llm_.timeout_s;
    http.on_body = [&stream](std::string_view bytes) { stream.feed(bytes); };
  }
  return http;
}

void OpenAiChatClient::charge_estimate(const ChatRequest& request, const CompletionStream& stream) {
  // The server may have read the prompt and written part of a reply before the request failed;
  // the budget counts what it may have cost.
  ledger_->record_estimate(estimated_prompt_tokens(request), static_cast<int64_t>(stream.text_chars() / 4));
}

std::string OpenAiChatClient::refused(const ProviderError& error, const std::string& hint) const {
  std::string code = error.code.empty() || error.code == std::to_string(error.status) ? "" : " " + error.code;
  return fmt::format("{} answered HTTP {}{}: {}{}", url_, error.status, code, error.message, hint);
}

OpenAiChatClient::Next OpenAiChatClient::on_bad_request(const ProviderError& error, const ShapeChoice& sent,
                                                        int64_t max_tokens, Attempts& state) {
  if (auto overflow = context_overflow(error)) {
    if (overflow->context) {
      std::lock_guard<std::mutex> lock(mutex_);
      context_tokens_ = overflow->context;
    }
    // The prompt fits but prompt and reply limit do not (a local server with a small context):
    // ask for what is left. A prompt that does not fit is the server's setting to change.
    if (overflow->context && overflow->prompt && *overflow->prompt < *overflow->context) {
      const int64_t room = *overflow->context - *overflow->prompt - kContextMargin;
      if (room > 0 && room < max_tokens && state.rewrites < kMaxRewrites) {
        spdlog::info("{}: the model's context of {} tokens leaves {} for the reply after a {}-token prompt; "
                     "asking for {} instead of {}",
                     describe(), *overflow->context, room, *overflow->prompt, room, max_tokens);
        state.fitted_max_tokens = room;
        ++state.rewrites;
        return Next::resend;
      }
    }
    // The proposer may ask again with less of the source; when it cannot, this is the error.
    throw PromptTooLong(
        refused(error, fmt::format(" (the prompt{} does not fit the model's context{}: start the server with a "
                                   "longer one, e.g. vLLM --max-model-len, llama.cpp --ctx-size, Ollama "
                                   "OLLAMA_CONTEXT_LENGTH, or use a model with a longer context)",
                                   overflow->prompt ? fmt::format(" of {} tokens", *overflow->prompt) : "",
                                   overflow->context ? fmt::format(" of {} tokens", *overflow->context) : "")),
        overflow->context);
  }
  if (const auto feature = refused_feature(error)) {
    const ProviderFact& fact = provider_fact(*feature);
    std::string what;
    auto adaptation = shape_->adapt(sent, *feature, llm_, what);
    if (adaptation == RequestShape::Adaptation::learned)
      spdlog::warn("{} refuses {} ({}): kernelbot {} from now on", describe(), fact.field, error.message, what);
    if (adaptation != RequestShape::Adaptation::none && state.rewrites < kMaxRewrites) {
      ++state.rewrites;
      return Next::resend;
    }
    // The configuration fixed it (a key other than "auto"): name the key that lets kernelbot adapt.
    const bool has_auto = fact.config_key == "token_parameter" || fact.config_key == "send_temperature";
    throw ChatError(refused(error, !has_auto ? ""
                                             : fmt::format(" (set [llm].{} = \"auto\" to let kernelbot "
                                                           "adapt, or to what the model takes)",
                                                           fact.config_key)),
                    ChatFailure::configuration);
  }
  throw ChatError(refused(error, " (check [llm].model and [llm].extra_body)"), ChatFailure::configuration);
}

OpenAiChatClient::Next OpenAiChatClient::on_error_status(const HttpResponse& response, const ShapeChoice& sent,
                                                         int64_t max_tokens, Attempts& state) {
  const ProviderError error = read_provider_error(response);
  const long status = response.status;
  if (status == 429 && is_insufficient_quota(error))
    throw ChatError(refused(error, " (the account has no quota left: waiting does not help)"),
                    ChatFailure::configuration);
  if (status == 429 || status >= 500) {
    state.last_error = fmt::format("HTTP {}: {}", status, error.message);
    state.server_wait = retry_after_seconds(response, RateLimitHeaders::openai);
    if (state.server_wait && *state.server_wait > policy_.max_server_wait_s)
      throw ChatError(fmt::format("{} asks to wait {:.0f} s before retrying ({}); giving up", url_, *state.server_wait,
                                  state.last_error));
    return Next::retry;
  }
  if (status == 400 || status == 413 || status == 422) return on_bad_request(error, sent, max_tokens, state);
  std::string hint;
  if (status == 401)
    hint = llm_.api_key_env.empty()
               ? " (the server wants a key: name the variable holding it in [llm].api_key_env)"
               : fmt::format(" (check the key in ${}, and [llm].api_key_header: \"Authorization\" sends \"Bearer "
                             "KEY\", Azure takes \"api-key\")",
                             llm_.api_key_env);
  else if (status == 403) hint = " (the key has no access to this model or endpoint)";
  else if (status == 404)
    hint = fmt::format(" (check [llm].base_url, the root that /chat/completions goes after, e.g. "
                       "https://api.openai.com/v1 or http://localhost:8000/v1, and [llm].model = \"{}\")",
                       llm_.model);
  throw ChatError(refused(error, hint), ChatFailure::configuration);
}

void OpenAiChatClient::tell_failed(const ChatRequest& request, const FailedAttempt& attempt) {
  if (!request.on_failed_attempt) return;
  try {
    request.on_failed_attempt(attempt);
  } catch (const std::exception& e) {
    spdlog::warn("llm {} {}: a failed attempt could not be noted: {}", request.step, request.key, e.what());
  }
}

int64_t OpenAiChatClient::reply_limit_within_context(const ChatRequest& request) const {
  const std::optional<int64_t> context = context_tokens();
  if (!context) return request.max_tokens;
  const int64_t prompt = estimated_prompt_tokens(request);
  const int64_t room = *context - prompt - kContextMargin;
  // Less room than this is no reply at all: a kernel's file does not fit.
  const int64_t least = std::min<int64_t>(request.max_tokens, kLeastReplyTokens);
  if (room < least)
    throw PromptTooLong(fmt::format("the prompt of about {} tokens leaves {} of the model's {}-token context ({}) for "
                                    "the reply, less than the {} it needs (raise [llm].context_tokens with the "
                                    "server's context: vLLM --max-model-len, llama.cpp --ctx-size, Ollama num_ctx)",
                                    prompt, std::max<int64_t>(room, 0), *context,
                                    llm_.context_tokens == *context ? "[llm].context_tokens" : "as the server named it",
                                    least),
                        *context);
  if (room < request.max_tokens)
    spdlog::debug("llm {} {}: the reply limit is {} tokens, what a {}-token context leaves after the prompt",
                  request.step, request.key, room, *context);
  return std::min(request.max_tokens, room);
}

ChatReply OpenAiChatClient::exchange(const ChatRequest& request, int64_t max_retries,
                                     std::optional<std::chrono::steady_clock::time_point> deadline) {
  const auto seconds_left = [&] {
    return deadline ? std::chrono::duration<double>(*deadline - std::chrono::steady_clock::now()).count() : 1e9;
  };
  Slot slot(in_flight_);
  const auto started = std::chrono::steady_clock::now();
  const int64_t attempts = 1 + std::max<int64_t>(0, max_retries);
  int silent_attempts = 0;
  Attempts state;
  // A known context caps the reply limit before the server has to refuse it.
  state.fitted_max_tokens = reply_limit_within_context(request);
  for (;;) {
    const int64_t max_tokens = ledger_->admit(std::min(request.max_tokens, state.fitted_max_tokens));
    const ShapeChoice shape = shape_->now();
    CompletionStream stream;
    HttpRequest http = http_request(request, shape, max_tokens, stream);
    if (deadline) {
      const double left = std::max(0.05, seconds_left());
      http.timeout_s = std::min(http.timeout_s, left);
      http.connect_timeout_s = std::min(http.connect_timeout_s, left);
      if (http.idle_timeout_s > 0) {  // streamed: the whole transfer is bounded too, not only silence
        http.idle_timeout_s = 0;
        http.timeout_s = left;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++attempts_;
    }
    state.server_wait.reset();
    bool silent = false;
    try {
      HttpResponse response = http_send(http);
      if (response.status == 200) {
        try {
          // A server may answer a streamed request with one JSON body: read whichever came.
          CompletionParts parts = stream.saw_events() ? stream.parts() : parse_completion(response.body);
          if (stream.saw_events() && !stream.done() && parts.finish_reason.empty())
            throw ChatError("the stream ended before the reply did");
          ChatReply reply = to_reply(std::move(parts), request);
          ledger_->record(reply.prompt_tokens, reply.completion_tokens);
          return reply;
        } catch (const ChatError& e) {
          state.last_error = std::string("malformed reply: ") + e.what();
          charge_estimate(request, stream);
          tell_failed(request, {response.status, response.body, state.last_error});
        }
      } else {
        Next next;
        try {
          next = on_error_status(response, shape, max_tokens, state);
        } catch (const ChatError& e) {
          tell_failed(request, {response.status, response.body, e.what()});
          throw;
        }
        tell_failed(request, {response.status, response.body,
                              next == Next::resend ? "refused; resent in another shape" : state.last_error});
        if (next == Next::resend) continue;
        if (response.status >= 500) charge_estimate(request, stream);
      }
    } catch (const HttpTransportError& e) {
      state.last_error = !e.timed_out ? e.what()
                         : shape.stream
                             ? fmt::format("no data for [llm].timeout_s = {:g} s (the longest a streamed reply may "
                                           "stay silent)",
                                           llm_.timeout_s)
                             : fmt::format("no reply within [llm].timeout_s = {:g} s", llm_.timeout_s);
      if (e.sent) charge_estimate(request, stream);
      tell_failed(request, {0, "", state.last_error});
      silent = e.timed_out;
      silent_attempts += silent ? 1 : 0;
    }
    if (++state.failures >= attempts) break;
    if (silent_attempts >= kMaxSilentAttempts) {
      state.last_error += fmt::format(" ({} of {} attempts got no reply: not retried again)", silent_attempts,
                                      state.failures);
      break;
    }
    double delay = backoff_delay_s(static_cast<int>(state.failures - 1), policy_.base_delay_s, policy_.max_delay_s,
                                   state.server_wait, next_jitter());
    if (delay >= seconds_left()) break;  // no time left for another attempt
    if (silent)
      spdlog::warn("llm {} {}: {} from {}; sending it once more in {:.1f} s (if that gets no reply either, this "
                   "request ends after {:.0f} s in all)",
                   request.step, request.key, state.last_error, describe(), delay,
                   seconds_since(started) + delay + llm_.timeout_s);
    else
      spdlog::warn("llm {} {}: {}; retry {}/{} in {:.1f} s", request.step, request.key, state.last_error,
                   state.failures, attempts - 1, delay);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
  throw ChatError(fmt::format("the model did not answer after {} attempt{}: {}", state.failures,
                              state.failures == 1 ? "" : "s", state.last_error));
}

}  // namespace kb::search
