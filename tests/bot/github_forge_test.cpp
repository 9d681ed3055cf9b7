// GitHubForge against FakeGitHub: what ends up on the (fake) GitHub, and how failures are survived.
#include "bot/github_forge.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "tests/bot/fake_github.h"

namespace kb::bot {
namespace {

using kb::testing::FakeGitHub;
using kb::testing::FakePullRequest;
using kb::testing::GitHubEndpoint;
using kb::testing::GitHubFault;

const std::string kRepo = "octo/kernels";
const std::string kToken = "ghp_SECRET_token_1234567890";

class GitHubForgeTest : public ::testing::Test {
 protected:
  GitHubForgeOptions options(const std::string& token = kToken) {
    GitHubForgeOptions o;
    o.api_url = fake.base_url();
    o.repository = kRepo;
    o.token = token;
    o.timeout_s = 5;
    o.max_attempts = 5;
    o.sleep = [this](double s) { sleeps.push_back(s); };
    return o;
  }
  static PullRequest pr(const std::string& head, const std::string& body = "body") {
    PullRequest p;
    p.title = "saxpy: 1.8x faster";
    p.body = body;
    p.head = head;
    p.base = "main";
    p.labels = {"kernelbot"};
    return p;
  }
  std::string error_of(GitHubForge& forge, const PullRequest& p) {
    try {
      forge.open_or_update(p);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    ADD_FAILURE() << "open_or_update did not throw";
    return "";
  }

  FakeGitHub fake{kRepo, kToken};
  std::vector<double> sleeps;
};

TEST_F(GitHubForgeTest, CreatesOnePullRequestWithEverythingSet) {
  auto o = options();
  o.labels = {"performance", "kernelbot"};
  GitHubForge forge(o);
  PullRequest p = pr("kernelbot/saxpy", "## Speedup\n1.8x");
  p.draft = true;
  PullRequestOutcome out = forge.open_or_update(p);

  auto pulls = fake.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0].title, "saxpy: 1.8x faster");
  EXPECT_EQ(pulls[0].body, "## Speedup\n1.8x");
  EXPECT_EQ(pulls[0].head, "kernelbot/saxpy");
  EXPECT_EQ(pulls[0].base, "main");
  EXPECT_TRUE(pulls[0].draft);
  EXPECT_EQ(pulls[0].labels, (std::vector<std::string>{"kernelbot", "performance"}));
  EXPECT_TRUE(out.created);
  EXPECT_EQ(out.number, pulls[0].number);
  EXPECT_EQ(out.url, "https://github.com/octo/kernels/pull/" + std::to_string(out.number));
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 1);
  EXPECT_EQ(fake.calls(GitHubEndpoint::add_labels), 1);
  EXPECT_TRUE(sleeps.empty());

  // Every request carries GitHub's headers; only those with a body say it is JSON.
  for (const auto& r : fake.requests()) {
    EXPECT_EQ(r.headers.at("accept"), "application/vnd.github+json") << r.target;
    EXPECT_EQ(r.headers.at("x-github-api-version"), "2022-11-28") << r.target;
    EXPECT_EQ(r.headers.at("authorization"), "Bearer " + kToken) << r.target;
    EXPECT_EQ(r.headers.at("user-agent"), "kernelbot") << r.target;
    if (r.method != "GET") {
      EXPECT_EQ(r.headers.at("content-type"), "application/json") << r.target;
    }
  }
}

TEST_F(GitHubForgeTest, SecondCallForTheSameHeadUpdatesInsteadOfOpeningAnother) {
  GitHubForge forge(options());
  PullRequestOutcome first = forge.open_or_update(pr("kernelbot/saxpy", "old body"));
  PullRequest again = pr("kernelbot/saxpy", "new body");
  again.title = "saxpy: 2.1x faster";
  PullRequestOutcome second = forge.open_or_update(again);

  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.number, first.number);
  EXPECT_EQ(second.url, first.url);
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 1);
  EXPECT_EQ(fake.calls(GitHubEndpoint::update_pull), 1);
  auto open = fake.open_pulls();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].body, "new body");
  EXPECT_EQ(open[0].title, "saxpy: 2.1x faster");
}

TEST_F(GitHubForgeTest, WaitsOutASecondaryRateLimitAsLongAsRetryAfterSays) {
  fake.secondary_rate_limit(GitHubEndpoint::create_pull, 7);
  GitHubForge forge(options());
  EXPECT_TRUE(forge.open_or_update(pr("kernelbot/saxpy")).created);
  ASSERT_EQ(sleeps.size(), 1u);
  EXPECT_GE(sleeps[0], 7.0);
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 2);
  EXPECT_EQ(fake.open_pulls().size(), 1u);
}

TEST_F(GitHubForgeTest, RetriesBadGateways) {
  fake.fail_next(GitHubEndpoint::list_pulls, 2, 502);
  fake.fail_next(GitHubEndpoint::create_pull, 1, 502);
  fake.fail_next(GitHubEndpoint::add_labels, 1, 503);
  GitHubForge forge(options());
  EXPECT_TRUE(forge.open_or_update(pr("kernelbot/saxpy")).created);
  EXPECT_EQ(sleeps.size(), 4u);
  auto open = fake.open_pulls();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].labels, std::vector<std::string>{"kernelbot"});
}

TEST_F(GitHubForgeTest, GivesUpAfterMaxAttemptsSayingWhatHappened) {
  fake.fail_next(GitHubEndpoint::list_pulls, 10, 502);
  auto o = options();
  o.max_attempts = 3;
  GitHubForge forge(o);
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("after 3 attempts"), std::string::npos) << what;
  EXPECT_NE(what.find("HTTP 502: Bad Gateway"), std::string::npos) << what;
  EXPECT_EQ(fake.calls(GitHubEndpoint::list_pulls), 3);
  EXPECT_EQ(sleeps.size(), 2u);
  EXPECT_TRUE(fake.pulls().empty());
}

TEST_F(GitHubForgeTest, RetriesARequestThatTimedOut) {
  fake.delay_next(GitHubEndpoint::list_pulls, 1, 1.5);
  auto o = options();
  o.timeout_s = 0.3;
  GitHubForge forge(o);
  EXPECT_TRUE(forge.open_or_update(pr("kernelbot/saxpy")).created);
  EXPECT_EQ(sleeps.size(), 1u);
  EXPECT_EQ(fake.calls(GitHubEndpoint::list_pulls), 3);  // the timed-out lookup, its retry, the count
  EXPECT_EQ(fake.open_pulls().size(), 1u);
}

TEST_F(GitHubForgeTest, ACreateThatLandedButTimedOutIsNotDuplicated) {
  fake.delay_next(GitHubEndpoint::create_pull, 1, 1.5);  // GitHub opens it; the client never hears
  auto o = options();
  o.timeout_s = 0.3;
  GitHubForge forge(o);
  PullRequestOutcome out = forge.open_or_update(pr("kernelbot/saxpy"));
  EXPECT_FALSE(out.created);
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 2);
  EXPECT_EQ(fake.calls(GitHubEndpoint::update_pull), 1);
  EXPECT_EQ(fake.open_pulls().size(), 1u);
}

TEST_F(GitHubForgeTest, AlreadyExistsOnCreateUpdatesTheExistingPullRequest) {
  // The lookup saw a stale empty list; the PR is there by the time of the POST.
  int64_t number = fake.add_pull({0, "old", "old body", "kernelbot/saxpy", "main", "open", {}, false, ""});
  fake.inject(GitHubEndpoint::list_pulls, {kb::testing::json_response(200, "[]"), false});
  fake.already_exists_on_next_create("kernelbot/saxpy");
  GitHubForge forge(options());
  PullRequestOutcome out = forge.open_or_update(pr("kernelbot/saxpy", "new body"));

  EXPECT_FALSE(out.created);
  EXPECT_EQ(out.number, number);
  EXPECT_EQ(fake.calls(GitHubEndpoint::update_pull), 1);
  auto pulls = fake.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0].body, "new body");
}

TEST_F(GitHubForgeTest, AlreadyExistsWithNothingToFindIsAnError) {
  fake.already_exists_on_next_create("kernelbot/saxpy");
  GitHubForge forge(options());
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("A pull request already exists for octo:kernelbot/saxpy."), std::string::npos) << what;
  EXPECT_TRUE(fake.pulls().empty());
}

TEST_F(GitHubForgeTest, OtherValidationErrorsCarryGitHubsMessage) {
  fake.inject(GitHubEndpoint::create_pull,
              {kb::testing::json_response(
                   422, R"({"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom",)"
                        R"("message":"No commits between main and kernelbot/saxpy"}]})"),
               false});
  GitHubForge forge(options());
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("HTTP 422"), std::string::npos) << what;
  EXPECT_NE(what.find("No commits between main and kernelbot/saxpy"), std::string::npos) << what;
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 1);
  EXPECT_TRUE(sleeps.empty());
}

TEST_F(GitHubForgeTest, RefusesBeyondTheCapCountingBotPullRequestsOnEveryPage) {
  // 103 open PRs, 100 a page: two bot PRs on page 1, three on page 2.
  for (int i = 0; i < 103; ++i) {
    bool bot = i == 10 || i == 50 || i >= 100;
    std::string head = bot ? "kernelbot/k" + std::to_string(i) : "feature/f" + std::to_string(i);
    fake.add_pull({0, "t", "b", head, "main", "open", {}, false, ""});
  }
  fake.add_pull({0, "t", "b", "kernelbot/closed", "main", "closed", {}, false, ""});  // not counted
  auto o = options();
  o.max_open_prs = 5;
  GitHubForge forge(o);
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("5 kernelbot pull requests are already open"), std::string::npos) << what;
  EXPECT_NE(what.find("max_open_prs = 5"), std::string::npos) << what;
  EXPECT_EQ(fake.calls(GitHubEndpoint::list_pulls), 3);  // the head lookup, then two pages
  EXPECT_EQ(fake.calls(GitHubEndpoint::create_pull), 0);

  // One more allowed: the same count passes and the PR opens.
  o.max_open_prs = 6;
  GitHubForge roomier(o);
  EXPECT_TRUE(roomier.open_or_update(pr("kernelbot/saxpy")).created);
}

TEST_F(GitHubForgeTest, WrongTokenIsAClearErrorWithoutRetries) {
  GitHubForge forge(options("ghp_wrong"));
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("GitHub rejected the token"), std::string::npos) << what;
  EXPECT_NE(what.find("Bad credentials"), std::string::npos) << what;
  EXPECT_EQ(what.find("ghp_wrong"), std::string::npos) << what;
  EXPECT_EQ(fake.requests().size(), 1u);
  EXPECT_TRUE(sleeps.empty());
}

TEST_F(GitHubForgeTest, UnknownRepositoryIsAClearError) {
  auto o = options();
  o.repository = "octo/missing";
  GitHubForge forge(o);
  std::string what = error_of(forge, pr("kernelbot/saxpy"));
  EXPECT_NE(what.find("not found or no access"), std::string::npos) << what;
  EXPECT_EQ(fake.requests().size(), 1u);
}

TEST_F(GitHubForgeTest, TheTokenNeverAppearsInTheLog) {
  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  auto previous = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>("capture", sink);
  capture->set_level(spdlog::level::trace);
  spdlog::set_default_logger(capture);

  fake.fail_next(GitHubEndpoint::list_pulls, 1, 502);
  fake.secondary_rate_limit(GitHubEndpoint::create_pull, 1);
  fake.delay_next(GitHubEndpoint::update_pull, 1, 1.0);
  auto o = options();
  o.timeout_s = 0.3;
  GitHubForge forge(o);
  forge.open_or_update(pr("kernelbot/saxpy"));
  forge.open_or_update(pr("kernelbot/saxpy", "second"));
  spdlog::set_default_logger(previous);

  std::string text = log.str();
  EXPECT_NE(text.find("retry"), std::string::npos) << text;  // the retries were logged...
  EXPECT_NE(text.find("opened pull request"), std::string::npos) << text;
  EXPECT_EQ(text.find(kToken), std::string::npos) << text;  // ...without the token
  EXPECT_EQ(text.find("ghp_"), std::string::npos) << text;
}

TEST(GitHubForgeConfig, ReadsTheTokenFromTokenEnvAndNamesItWhenMissing) {
  const char* saved = std::getenv("GITHUB_TOKEN");
  std::string saved_value = saved ? saved : "";
  ::unsetenv("GITHUB_TOKEN");
  ::unsetenv("KB_TEST_GH_TOKEN");
  kb::config::Config config;
  config.github.repository = "octo/kernels";
  config.github.token_env = "KB_TEST_GH_TOKEN";
  try {
    GitHubForge::from_config(config);
    ADD_FAILURE() << "from_config did not throw without a token";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("KB_TEST_GH_TOKEN"), std::string::npos) << e.what();
  }
  ::setenv("KB_TEST_GH_TOKEN", "t", 1);
  auto forge = GitHubForge::from_config(config);
  EXPECT_EQ(forge->name(), "github");
  ::unsetenv("KB_TEST_GH_TOKEN");
  ::setenv("GITHUB_TOKEN", "fallback", 1);  // the fallback
  EXPECT_NO_THROW(GitHubForge::from_config(config));
  if (saved) {
    ::setenv("GITHUB_TOKEN", saved_value.c_str(), 1);
  } else {
    ::unsetenv("GITHUB_TOKEN");
  }
}

}  // namespace
}  // namespace kb::bot
