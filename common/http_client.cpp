#include "common/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <map>
#include <memory>
#include <mutex>

#include "common/text.h"

namespace kb {
namespace {

// What one transfer's callbacks share: the response being filled, the caller's body callback and
// when the last byte moved (for the idle limit).
struct Transfer {
  HttpResponse* response = nullptr;
  const HttpRequest* request = nullptr;
  std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
  curl_off_t uploaded = 0, downloaded = 0;
  std::exception_ptr callback_error;  // thrown by on_body: rethrown after libcurl returns
  void touch() { last_activity = std::chrono::steady_clock::now(); }
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->touch();
  t->response->body.append(data, size * count);
  if (t->request->on_body) {
    try {
      t->request->on_body(std::string_view(data, size * count));
    } catch (...) {
      t->callback_error = std::current_exception();
      return 0;  // aborts the transfer
    }
  }
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->touch();
  auto* response = t->response;
  std::string line(data, size * count);
  if (line.starts_with("HTTP/")) response->headers.clear();  // a new response (after 100-continue, redirects)
  auto colon = line.find(':');
  if (colon != std::string::npos) response->headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  return size * count;
}

// Bytes sent count as activity too: a large prompt going out is not an idle server.
int on_progress(void* user, curl_off_t, curl_off_t dlnow, curl_off_t, curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(user);
  if (dlnow != t->downloaded || ulnow != t->uploaded) {
    t->downloaded = dlnow;
    t->uploaded = ulnow;
    t->touch();
  }
  return 0;
}

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string fmt_seconds(const std::string& prefix, double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", seconds);
  return prefix + buf;
}

struct Outcome {
  CURLcode code = CURLE_OK;
  bool idle = false;  // aborted after idle_timeout_s without a byte
};

// Runs the transfer through a multi handle so that silence can be measured between polls, to a
// fraction of a second (libcurl's own low-speed limit counts whole seconds).
Outcome perform(CURL* c, Transfer& transfer, const HttpRequest& request) {
  const double idle_timeout_s = request.idle_timeout_s;
  const auto start = std::chrono::steady_clock::now();
  double next_note_s = request.still_waiting_after_s;
  std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)> multi(curl_multi_init(), curl_multi_cleanup);
  if (!multi) return {CURLE_OUT_OF_MEMORY, false};
  curl_multi_add_handle(multi.get(), c);
  struct Detach {
    CURLM* m;
    CURL* e;
    ~Detach() { curl_multi_remove_handle(m, e); }
  } detach{multi.get(), c};
  const int poll_ms = idle_timeout_s > 0 ? std::clamp(static_cast<int>(idle_timeout_s * 250), 10, 250) : 1000;
  for (int running = 1;;) {
    if (curl_multi_perform(multi.get(), &running) != CURLM_OK) return {CURLE_FAILED_INIT, false};
    if (!running) break;
    if (idle_timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - transfer.last_activity).count() >
            idle_timeout_s)
      return {CURLE_OPERATION_TIMEDOUT, true};
    if (const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        request.on_still_waiting && waited >= next_note_s) {
      request.on_still_waiting(waited);
      next_note_s = waited + std::max(0.01, request.still_waiting_every_s);
    }
    // A silent server wakes no poll: sleep no longer than the next note is due.
    int wait_ms = poll_ms;
    if (request.on_still_waiting) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      wait_ms = std::clamp(static_cast<int>((next_note_s - waited) * 1000) + 1, 1, poll_ms);
    }
    curl_multi_poll(multi.get(), nullptr, 0, wait_ms, nullptr);
  }
  Outcome outcome;
  int left = 0;
  while (CURLMsg* m = curl_multi_info_read(multi.get(), &left))
    if (m->msg == CURLMSG_DONE && m->easy_handle == c) outcome.code = m->data.result;
  return outcome;
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() ? "" : it->second;
}

HttpResponse http_send(const HttpRequest& request) {
  global_init_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw HttpTransportError("cannot initialise libcurl", false);
  HttpResponse response;
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) headers = curl_slist_append(headers, (name + ": " + value).c_str());
  // Without this, libcurl sends "Expect: 100-continue" on large bodies and waits a second.
  headers = curl_slist_append(headers, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers, curl_slist_free_all);

  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  if (!request.body.empty() || request.method == "POST" || request.method == "PATCH" || request.method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  // Streamed: no limit on the whole transfer, only on silence (checked below, between polls).
  if (request.idle_timeout_s <= 0) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // safe in threads
  curl_easy_setopt(c, CURLOPT_USERAGENT, "kernelbot/0.1");
  Transfer transfer;
  transfer.response = &response;
  transfer.request = &request;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");

  const Outcome outcome = perform(c, transfer, request);
  if (transfer.callback_error) std::rethrow_exception(transfer.callback_error);
  long request_size = 0;
  curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &request_size);
  if (outcome.idle)
    throw HttpTransportError(fmt_seconds(request.method + " " + request.url + ": no data for ", request.idle_timeout_s),
                             true, true);
  if (outcome.code != CURLE_OK)
    throw HttpTransportError(request.method + " " + request.url + ": " + curl_easy_strerror(outcome.code),
                             outcome.code == CURLE_OPERATION_TIMEDOUT, request_size > 0);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::optional<double> parse_duration_s(const std::string& text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  double bare = std::strtod(t.c_str(), &end);
  if (*end == '\0') return bare >= 0 ? std::optional<double>(bare) : std::nullopt;  // plain seconds
  static const std::map<std::string, double> scale{{"h", 3600},  {"m", 60},    {"s", 1},
                                                   {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  double total = 0;
  for (size_t i = 0; i < t.size();) {
    if (!std::isdigit(static_cast<unsigned char>(t[i])) && t[i] != '.') return std::nullopt;
    double value = std::strtod(t.c_str() + i, &end);
    i = static_cast<size_t>(end - t.c_str());
    size_t unit_end = i;
    while (unit_end < t.size() && std::isalpha(static_cast<unsigned char>(t[unit_end]))) ++unit_end;
    auto unit = scale.find(t.substr(i, unit_end - i));
    if (unit == scale.end()) return std::nullopt;
    total += value * unit->second;
    i = unit_end;
  }
  return total;
}

namespace {

std::optional<double> standard_retry_after(const HttpResponse& response) {
  std::string value = response.header("retry-after");
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end && *end == '\0' && seconds >= 0) return seconds;
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm))
    return std::max(0.0, std::difftime(timegm(&tm), std::time(nullptr)));
  return std::nullopt;
}

// GitHub's primary limit: x-ratelimit-reset is the epoch second the budget comes back.
std::optional<double> github_reset(const HttpResponse& response) {
  if (response.header("x-ratelimit-remaining") != "0") return std::nullopt;
  std::string reset = response.header("x-ratelimit-reset");
  if (reset.empty()) return std::nullopt;
  return std::max(0.0, std::strtod(reset.c_str(), nullptr) - static_cast<double>(std::time(nullptr)));
}

// OpenAI (and the servers that copy it): a request limit and a token limit, each with what is
// left and how long until it is whole again. The spent one says how long to wait; when neither
// says it is spent (a request larger than what is left), the sooner reset is a floor.
std::optional<double> openai_reset(const HttpResponse& response) {
  std::optional<double> spent, soonest;
  for (const char* limit : {"requests", "tokens"}) {
    auto reset = parse_duration_s(response.header(std::string("x-ratelimit-reset-") + limit));
    if (!reset) continue;
    if (response.header(std::string("x-ratelimit-remaining-") + limit) == "0")
      spent = std::max(spent.value_or(0), *reset);
    soonest = std::min(soonest.value_or(*reset), *reset);
  }
  return spent ? spent : soonest;
}

}  // namespace

std::optional<double> retry_after_seconds(const HttpResponse& response, RateLimitHeaders rules) {
  if (rules == RateLimitHeaders::openai) {
    std::string ms = response.header("retry-after-ms");
    char* end = nullptr;
    double value = std::strtod(ms.c_str(), &end);
    if (!ms.empty() && end && *end == '\0' && value >= 0) return value / 1000;
  }
  if (auto wait = standard_retry_after(response)) return wait;
  if (rules == RateLimitHeaders::github) return github_reset(response);
  if (rules == RateLimitHeaders::openai) return openai_reset(response);
  return std::nullopt;
}

double backoff_delay_s(int attempt, double base_s, double cap_s, std::optional<double> server_wait_s,
                       double unit_random) {
  double exponential = std::min(cap_s, base_s * std::pow(2.0, attempt));
  double jittered = exponential * std::clamp(unit_random, 0.0, 1.0);
  double delay = std::max(jittered, server_wait_s.value_or(0.0));
  return std::min(delay, std::max(cap_s, server_wait_s.value_or(0.0)));
}

}  // namespace kb
