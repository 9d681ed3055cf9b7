// A small HTTP client over libcurl for the REST APIs kernelbot calls (an LLM's chat endpoint,
// GitHub), plus the retry arithmetic those rate-limited APIs share. It never logs headers,
// so tokens in Authorization headers stay out of logs.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/errors.h"

namespace kb {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double timeout_s = 60;  // the whole transfer (unless idle_timeout_s is set)
  double connect_timeout_s = 10;
  // A streamed answer may take as long as it likes while bytes keep coming: when > 0, the
  // transfer fails only after this many seconds without a byte, and timeout_s does not apply.
  double idle_timeout_s = 0;
  // Called with each piece of the body as it arrives (the body is also kept in the response).
  std::function<void(std::string_view)> on_body = {};
  // Called with the seconds waited so far once the answer has taken `still_waiting_after_s`, then
  // every `still_waiting_every_s` more: so a caller can say what it waits for instead of going silent.
  std::function<void(double)> on_still_waiting = {};
  double still_waiting_after_s = 5;
  double still_waiting_every_s = 30;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; the last value of a repeated header
  std::string body;
  // The header's value, or "" when absent. `name` is matched case-insensitively.
  std::string header(const std::string& name) const;
};

// The request never got a whole HTTP answer: DNS, connect, TLS, timeout, or the server hung up.
struct HttpTransportError : Error {
  HttpTransportError(const std::string& what, bool is_timeout, bool was_sent = false)
      : Error(what), timed_out(is_timeout), sent(was_sent) {}
  bool timed_out;
  bool sent;  // the request reached the server (a reply may have been under way): it may have cost
};

// Sends one request; throws HttpTransportError when no response arrives.
HttpResponse http_send(const HttpRequest& request);

// Whose rate-limit headers a response is read with. Retry-After (seconds or an HTTP date) is
// everyone's; the reset headers mean different things at different providers.
enum class RateLimitHeaders {
  standard,  // Retry-After only
  github,    // and x-ratelimit-reset (epoch seconds) when x-ratelimit-remaining is 0
  openai,    // and retry-after-ms, x-ratelimit-reset-requests / -tokens (durations: "1s", "6m0s", "20ms")
};

// Seconds the server asks us to wait, read by `rules`; nullopt when it says nothing.
std::optional<double> retry_after_seconds(const HttpResponse& response,
                                          RateLimitHeaders rules = RateLimitHeaders::standard);

// A Go-style duration as OpenAI's rate-limit headers write it ("1s", "6m0s", "20ms", "1h2m3.5s",
// "0.5"), in seconds; nullopt when it is not one.
std::optional<double> parse_duration_s(const std::string& text);

// Exponential backoff with full jitter, at least what the server asked for, at most `cap_s`.
// `attempt` counts from 0. `unit_random` in [0,1) is passed in so tests are deterministic.
double backoff_delay_s(int attempt, double base_s, double cap_s, std::optional<double> server_wait_s,
                       double unit_random);

}  // namespace kb
