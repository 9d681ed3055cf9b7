// The fake GitHub's record of what it was asked and what it answered, one JSON object a line,
// for the check against GitHub's own OpenAPI description (tests/bot/openapi/check_exchanges.mjs,
// run by ctest after the suites that use the fake). One file per fake, named after the test and
// the process, so suites running in parallel under `ctest -j` never write to the same file.
#pragma once

#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "tests/support/loopback_http_server.h"

namespace kb::testing {

class ExchangeLog {
 public:
  // Opens a new file under `dir` (created if needed); the current GoogleTest test names it.
  explicit ExchangeLog(const std::filesystem::path& dir);
  void append(const LoopbackRequest& request, const LoopbackResponse& response);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::string test_;
  std::filesystem::path path_;
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace kb::testing
