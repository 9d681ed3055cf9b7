#include "common/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <mutex>

namespace kb {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) response->headers.clear();  // a new response (after 100-continue, redirects)
  auto colon = line.find(':');
  if (colon != std::string::npos) response->headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  return size * count;
}

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
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
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // safe in threads
  curl_easy_setopt(c, CURLOPT_USERAGENT, "kernelbot/0.1");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");

  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    throw HttpTransportError(request.method + " " + request.url + ": " + curl_easy_strerror(rc),
                             rc == CURLE_OPERATION_TIMEDOUT);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::optional<double> retry_after_seconds(const HttpResponse& response) {
  std::string value = response.header("retry-after");
  if (!value.empty()) {
    char* end = nullptr;
    double seconds = std::strtod(value.c_str(), &end);
    if (end && *end == '\0' && seconds >= 0) return seconds;
    std::tm tm{};
    if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
      double wait = std::difftime(timegm(&tm), std::time(nullptr));
      return std::max(0.0, wait);
    }
  }
  if (response.header("x-ratelimit-remaining") == "0") {
    std::string reset = response.header("x-ratelimit-reset");
    if (!reset.empty()) {
      double wait = std::strtod(reset.c_str(), nullptr) - static_cast<double>(std::time(nullptr));
      return std::max(0.0, wait);
    }
  }
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
