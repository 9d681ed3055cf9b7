// The GitHub client against exchanges recorded from the real api.github.com (@octokit/fixtures,
// replayed by @octokit/fixtures-server, a Node process on loopback): Link pagination across
// pages, a real 422 validation error, adding labels, and the rate-limit headers GitHub sends.
// What is expected is read from the recordings themselves, not written here.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bot/forge/github_client.h"

using kb::bot::GitHubClient;
using kb::bot::GitHubError;
using nlohmann::json;

namespace {

// The token the recordings were made with (a placeholder; the replay checks it).
const std::string kFixtureToken = "0000000000000000000000000000000000000001";

json recording(const std::string& scenario) {
  std::ifstream in(std::string(KB_OPENAPI_DIR) + "/node_modules/@octokit/fixtures/scenarios/api.github.com/" +
                   scenario + "/normalized-fixture.json");
  if (!in) throw std::runtime_error("no recording of " + scenario + ": run tests/bot/openapi/install.sh");
  return json::parse(in);
}

class FixturesServer {
 public:
  explicit FixturesServer(const std::string& scenarios) {
    std::string command = "cd '" + std::string(KB_OPENAPI_DIR) + "' && exec node fixtures_server.mjs " + scenarios;
    pipe_ = popen(command.c_str(), "r");
    char line[512] = {0};
    if (!pipe_ || !std::fgets(line, sizeof line, pipe_)) return;
    auto started = json::parse(line, nullptr, false);
    if (started.is_object()) {
      url_ = started.value("url", "");
      pid_ = started.value("pid", 0);
    }
  }
  ~FixturesServer() {
    if (pid_ > 0) kill(pid_, SIGTERM);
    if (pipe_) pclose(pipe_);
  }
  const std::string& url() const { return url_; }

  // Loads a scenario; the answer is the base URL to use as if it were https://api.github.com.
  std::string load(const std::string& scenario) const {
    kb::HttpRequest r;
    r.method = "POST";
    r.url = url_ + "/fixtures";
    r.headers = {{"Content-Type", "application/json"}};
    r.body = json{{"scenario", scenario}}.dump();
    auto response = kb::http_send(r);
    if (response.status != 201) throw std::runtime_error("fixtures server: " + response.body);
    return json::parse(response.body).at("url");
  }

 private:
  FILE* pipe_ = nullptr;
  std::string url_;
  int pid_ = 0;
};

struct Recorded : ::testing::Test {
  void SetUp() override {
    ASSERT_FALSE(server.url().empty())
        << "the fixtures server (node tests/bot/openapi/fixtures_server.mjs) did not start; are its npm packages "
           "installed (tests/bot/openapi/install.sh)?";
  }
  GitHubClient client(const std::string& scenario, const std::string& repository) {
    kb::bot::GitHubRetryPolicy p;
    p.sleep = [this](double s) {
      sleeps.push_back(s);
      clock += s;
    };
    p.now = [this] { return clock; };
    p.max_attempts = 1;  // a replay answers each recorded request once
    return GitHubClient(server.load(scenario), repository, kFixtureToken, p);
  }
  FixturesServer server{"paginate-issues add-labels-to-issue errors"};
  std::vector<double> sleeps;
  double clock = 0;
};

TEST_F(Recorded, FollowsGitHubsLinkHeadersThroughEveryPage) {
  json pages = recording("paginate-issues");
  std::vector<int64_t> expected;
  for (const auto& page : pages)
    for (const auto& issue : page.at("response")) expected.push_back(issue.at("number"));
  ASSERT_GT(pages.size(), 2u);

  auto c = client("paginate-issues", "octokit-fixture-org/paginate-issues");
  // The first page's query as recorded; the next pages are wherever GitHub's Link header points.
  std::string first = pages[0].at("path");
  auto items = c.get_pages(first.substr(first.find("/issues")));
  std::vector<int64_t> got;
  for (const auto& issue : items) got.push_back(issue.at("number"));
  EXPECT_EQ(got, expected);
}

TEST_F(Recorded, AddsLabelsAndReadsGitHubsRateLimitHeaders) {
  json exchanges = recording("add-labels-to-issue");
  ASSERT_EQ(exchanges.size(), 2u);
  auto c = client("add-labels-to-issue", "octokit-fixture-org/add-labels-to-issue");
  json issue = c.request("POST", "/issues", exchanges[0].at("body"));
  std::vector<std::string> labels = exchanges[1].at("body").at("labels");
  c.add_labels(issue.at("number"), labels);
  std::string remaining = exchanges[1].at("headers").at("x-ratelimit-remaining");
  EXPECT_EQ(c.rate_limit_remaining(), std::stoll(remaining));
  EXPECT_EQ(sleeps, std::vector<double>{1.0});  // the second POST waited out the mutation spacing
}

TEST_F(Recorded, ARealValidationErrorIsReportedWithWhatGitHubNamed) {
  json exchange = recording("errors").at(0);
  ASSERT_EQ(exchange.at("status"), 422);
  auto c = client("errors", "octokit-fixture-org/errors");
  try {
    c.request("POST", "/labels", exchange.at("body"));
    FAIL() << "expected GitHub's 422";
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 422);
    const json& error = exchange.at("response").at("errors").at(0);
    std::string named = error.at("resource").get<std::string>() + "." + error.at("field").get<std::string>() + " " +
                        error.at("code").get<std::string>();
    EXPECT_NE(std::string(e.what()).find("Validation Failed: " + named), std::string::npos) << e.what();
  }
  EXPECT_TRUE(sleeps.empty());  // a 422 is not retried
}

}  // namespace
