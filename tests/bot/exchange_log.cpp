#include "tests/bot/exchange_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kb::testing {

ExchangeLog::ExchangeLog(const std::filesystem::path& dir) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  test_ = info ? std::string(info->test_suite_name()) + "." + info->name() : "outside-a-test";
  static std::atomic<int> serial{0};
  std::filesystem::create_directories(dir);
  path_ = dir / (test_ + "-" + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".jsonl");
  out_.open(path_, std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write the GitHub exchange log " + path_.string());
}

void ExchangeLog::append(const LoopbackRequest& request, const LoopbackResponse& response) {
  nlohmann::json headers = nlohmann::json::object();
  for (const auto& [name, value] : response.headers) headers[name] = value;  // names as sent
  nlohmann::json request_headers = request.headers;
  if (request_headers.contains("authorization"))  // the scheme is checked, the test token is not kept
    request_headers["authorization"] = request.headers.at("authorization").substr(0, 7) + "(redacted)";
  auto query = request.target.find('?');
  nlohmann::json line = {
      {"test", test_},
      {"method", request.method},
      {"path", request.path},
      {"query", query == std::string::npos ? "" : request.target.substr(query + 1)},
      {"request_headers", request_headers},
      {"request_body", request.body},
      {"status", response.status},
      {"response_headers", headers},
      {"response_body", response.body},
      {"hang_up", response.hang_up},
  };
  // The bodies are kernelbot's and the fake's own text; invalid UTF-8 would be a finding, not a crash.
  std::lock_guard lock(mutex_);
  out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  out_.flush();
}

}  // namespace kb::testing
