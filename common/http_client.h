// A small HTTP client over libcurl for the REST APIs kernelbot calls (an LLM's chat endpoint,
// GitHub), plus the retry arithmetic those rate-limited APIs share. It never logs headers,
// so tokens in Authorization headers stay out of logs.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kb {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double timeout_s = 60;          // the whole transfer
  double connect_timeout_s = 10;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; the last value of a repeated header
  std::string body;
  // The header's value, or "" when absent. `name` is matched case-insensitively.
  std::string header(const std::string& name) const;
};

// The request never got an HTTP answer: DNS, connect, TLS, timeout, or the server hung up.
struct HttpTransportError : std::runtime_error {
  HttpTransportError(const std::string& what, bool is_timeout) : std::runtime_error(what), timed_out(is_timeout) {}
  bool timed_out;
};

// Sends one request; throws HttpTransportError when no response arrives.
HttpResponse http_send(const HttpRequest& request);

// Seconds the server asks us to wait: Retry-After (seconds or an HTTP date), or for GitHub's
// primary limit, x-ratelimit-reset when x-ratelimit-remaining is 0. nullopt when it says nothing.
std::optional<double> retry_after_seconds(const HttpResponse& response);

// Exponential backoff with full jitter, at least what the server asked for, at most `cap_s`.
// `attempt` counts from 0. `unit_random` in [0,1) is passed in so tests are deterministic.
double backoff_delay_s(int attempt, double base_s, double cap_s, std::optional<double> server_wait_s,
                       double unit_random);

}  // namespace kb
