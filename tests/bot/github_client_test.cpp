// The GitHub client against a fake GitHub on loopback: the requests it makes, pagination, and
// every failure it must ride out or report: secondary and primary rate limits, 5xx, timeouts,
// 422 "already exists" and other validation errors; and GitHub's rules for integrators (one
// request at a time, mutating requests a second apart, no request while the limit is spent, no
// body over GitHub's size limit). Waits are recorded on a fake clock, not slept.
#include <gtest/gtest.h>

#include <ctime>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <thread>

#include "bot/forge/github_body_limit.h"
#include "bot/forge/github_client.h"
#include "tests/bot/fake_github.h"

using namespace kb::testing;
using kb::bot::GitHubClient;
using kb::bot::GitHubError;

namespace {

const std::string kToken = "ghs_test_token_abc";

struct Fixture {
  explicit Fixture(int page_size = 30) : github("acme/widgets", kToken, page_size) {}
  GitHubClient client(double timeout_s = 5, int max_attempts = 6, double budget_s = 900) {
    kb::bot::GitHubRetryPolicy p;
    p.sleep = [this](double s) {
      sleeps.push_back(s);
      clock += s;
    };
    p.now = [this] { return clock; };
    p.random = [] { return 0.5; };
    p.timeout_s = timeout_s;
    p.max_attempts = max_attempts;
    p.rate_limit_budget_s = budget_s;
    return GitHubClient(github.api_url(), "acme/widgets", kToken, p);
  }
  FakeGitHub github;
  std::vector<double> sleeps;
  double clock = 0;  // advanced only by the client's waits
};

const char* kDocs = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request";

LoopbackResponse secondary_limit(const std::string& retry_after) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!retry_after.empty()) headers.emplace_back("Retry-After", retry_after);
  return json_response(
      403, R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})",
      headers);
}

TEST(GitHubClient, CreatesAPullRequestWithGitHubsHeaders) {
  Fixture f;
  auto c = f.client();
  auto created = c.create_pull("kernelbot: saxpy 1.55x faster", "body text", "kernelbot/saxpy", "main", true);
  EXPECT_TRUE(created.created);
  EXPECT_EQ(created.pull.number, 1);
  EXPECT_EQ(created.pull.head_ref, "kernelbot/saxpy");
  EXPECT_EQ(created.pull.html_url, "https://github.com/acme/widgets/pull/1");
  auto pulls = f.github.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0].body, "body text");
  EXPECT_TRUE(pulls[0].draft);
  auto req = f.github.requests().back();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/repos/acme/widgets/pulls");
  EXPECT_EQ(req.headers.at("authorization"), "Bearer " + kToken);
  EXPECT_EQ(req.headers.at("accept"), "application/vnd.github+json");
  EXPECT_EQ(req.headers.at("x-github-api-version"), "2022-11-28");
  EXPECT_EQ(req.headers.at("user-agent").rfind("kernelbot/", 0), 0u);
  EXPECT_TRUE(f.sleeps.empty());
  c.add_labels(1, {"kernelbot", "performance"});
  EXPECT_EQ(f.github.pulls()[0].labels, (std::vector<std::string>{"kernelbot", "performance"}));
  EXPECT_EQ(f.sleeps, std::vector<double>{1.0});  // a second after the POST that opened it
}

TEST(GitHubClient, FindsTheOpenPullForAHeadBranch) {
  Fixture f;
  f.github.add_pull("kernelbot/transpose", "other");
  f.github.add_pull("kernelbot/saxpy", "old, closed", "closed");
  int64_t mine = f.github.add_pull("kernelbot/saxpy", "mine");
  auto c = f.client();
  auto found = c.open_pulls("kernelbot/saxpy");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].number, mine);
  EXPECT_NE(f.github.requests().back().target.find("head=acme%3Akernelbot%2Fsaxpy"), std::string::npos)
      << f.github.requests().back().target;
}

TEST(GitHubClient, FollowsLinkNextThroughEveryPage) {
  Fixture f(30);
  for (int i = 0; i < 75; ++i) f.github.add_pull("feature/" + std::to_string(i), "t");
  auto c = f.client();
  EXPECT_EQ(c.open_pulls().size(), 75u);
  EXPECT_EQ(f.github.count("GET", "/repos/acme/widgets/pulls"), 3);
}

TEST(GitHubClient, LinkHeaderParsing) {
  EXPECT_EQ(kb::bot::link_next(
                "<https://api.github.com/r?page=2>; rel=\"next\", <https://api.github.com/r?page=5>; rel=\"last\""),
            "https://api.github.com/r?page=2");
  EXPECT_EQ(kb::bot::link_next("<https://a/r?page=1>; rel=\"prev\", <https://a/r?page=3>; rel=\"next\""),
            "https://a/r?page=3");
  EXPECT_EQ(kb::bot::link_next("<https://a/r?page=1>; rel=\"first\""), "");
  EXPECT_EQ(kb::bot::link_next(""), "");
}

// A Link header's URL is followed only on the API's own origin: a response (or a proxy in
// between) naming another host must not receive the token.
TEST(GitHubClient, LinkToAnotherHostIsRefusedBeforeTheTokenIsSent) {
  EXPECT_EQ(kb::bot::url_origin("https://API.github.com/repos/a/b?page=2"), "https://api.github.com");
  EXPECT_EQ(kb::bot::url_origin("http://127.0.0.1:8080/x"), "http://127.0.0.1:8080");
  EXPECT_EQ(kb::bot::url_origin("https://api.github.com@evil.example/x"), "") << "credentials before the host";
  EXPECT_EQ(kb::bot::url_origin("/repos/a/b"), "");

  Fixture f;
  for (int i = 0; i < 40; ++i) f.github.add_pull("feature/" + std::to_string(i), "t");
  kb::bot::GitHubRetryPolicy p;
  p.sleep = [](double) {};
  // The same server under another origin: its Link headers name 127.0.0.1, the client was given localhost.
  std::string api = f.github.api_url();
  const std::string host = "127.0.0.1";
  ASSERT_NE(api.find(host), std::string::npos) << api;
  api.replace(api.find(host), host.size(), "localhost");
  GitHubClient c(api, "acme/widgets", kToken, p);
  try {
    c.open_pulls();
    FAIL() << "the second page's URL is on another origin";
  } catch (const GitHubError& e) {
    EXPECT_NE(std::string(e.what()).find("refusing to send the token"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f.github.count("GET", "/repos/acme/widgets/pulls"), 1) << "only the first page, on the API's origin";
}

TEST(GitHubClient, SecondaryRateLimitWaitsWhatRetryAfterSaysThenSucceeds) {
  Fixture f;
  f.github.add_fault({"POST", "/repos/acme/widgets/pulls", secondary_limit("7")});
  f.github.add_fault({"POST", "/repos/acme/widgets/pulls",
                      json_response(429, R"({"message":"Too many requests"})", {{"Retry-After", "3"}})});
  auto c = f.client();
  auto created = c.create_pull("t", "b", "kernelbot/saxpy", "main", false);
  EXPECT_TRUE(created.created);
  ASSERT_EQ(f.sleeps.size(), 2u);
  EXPECT_GE(f.sleeps[0], 7.0);
  EXPECT_GE(f.sleeps[1], 3.0);
  EXPECT_EQ(f.github.count("POST", "/repos/acme/widgets/pulls"), 3);
  EXPECT_EQ(f.github.open_pulls_for("kernelbot/saxpy").size(), 1u);
}

TEST(GitHubClient, SecondaryRateLimitWithoutRetryAfterWaitsAMinute) {
  Fixture f;
  f.github.add_fault({"GET", "", secondary_limit("")});
  auto c = f.client();
  EXPECT_TRUE(c.open_pulls().empty());
  ASSERT_EQ(f.sleeps.size(), 1u);
  EXPECT_GE(f.sleeps[0], 60.0);  // GitHub: "wait for at least one minute before retrying"
}

TEST(GitHubClient, PrimaryRateLimitWaitsForTheResetWithinItsBudget) {
  Fixture f;
  std::string reset = std::to_string(std::time(nullptr) + 30);
  auto limited = json_response(403, R"({"message":"API rate limit exceeded for installation ID 1."})",
                               {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", reset}});
  f.github.add_fault({"GET", "", limited});
  auto c = f.client();
  EXPECT_TRUE(c.open_pulls().empty());
  ASSERT_EQ(f.sleeps.size(), 1u);
  EXPECT_GE(f.sleeps[0], 28.0);
  EXPECT_LE(f.sleeps[0], 32.0);

  Fixture g;
  g.github.add_fault({"GET", "", limited});
  auto tight = g.client(5, 6, /*budget_s=*/10);
  try {
    tight.open_pulls();
    FAIL() << "expected the rate limit to be reported";
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 403);
    EXPECT_NE(std::string(e.what()).find("rate limit"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(g.sleeps.empty());
}

TEST(GitHubClient, ServerErrorsAreRetriedThenReported) {
  Fixture f;
  f.github.add_fault({"PATCH", "", json_response(502, R"({"message":"Server Error"})")});
  f.github.add_pull("kernelbot/saxpy", "t");
  auto c = f.client();
  EXPECT_EQ(c.update_pull(1, "new title", "new body").title, "new title");
  EXPECT_EQ(f.sleeps, std::vector<double>{1.0});  // the backoff (0.5 s) within the mutation spacing

  Fixture g;
  for (int i = 0; i < 3; ++i) g.github.add_fault({"GET", "", json_response(502, "<html>bad gateway</html>")});
  auto give_up = g.client(5, /*max_attempts=*/3);
  try {
    give_up.open_pulls();
    FAIL();
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 502);
    EXPECT_NE(std::string(e.what()).find("gave up after 3 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g.sleeps.size(), 2u);
}

TEST(GitHubClient, TimeoutsAreRetried) {
  Fixture f;
  LoopbackResponse slow = json_response(200, "[]");
  slow.delay_s = 1.5;
  f.github.add_fault({"GET", "", slow});
  auto c = f.client(/*timeout_s=*/0.3);
  EXPECT_TRUE(c.open_pulls().empty());
  EXPECT_EQ(f.sleeps.size(), 1u);
  EXPECT_EQ(f.github.count("GET", "/repos/acme/widgets/pulls"), 2);
}

TEST(GitHubClient, AlreadyExistsFindsAndUpdatesTheOpenPull) {
  Fixture f;
  auto c = f.client();
  // The PR exists (an earlier run, or a POST whose answer was lost), but the bot did not see it.
  int64_t existing = f.github.add_pull("kernelbot/saxpy", "old title");
  auto result = c.create_pull("new title", "new body", "kernelbot/saxpy", "main", false);
  EXPECT_FALSE(result.created);
  EXPECT_EQ(result.pull.number, existing);
  auto open = f.github.open_pulls_for("kernelbot/saxpy");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].title, "new title");
  EXPECT_EQ(open[0].body, "new body");
  EXPECT_EQ(f.github.count("PATCH", "/repos/acme/widgets/pulls/"), 1);
}

TEST(GitHubClient, ACreateThatLandedButTimedOutIsNotDuplicated) {
  Fixture f;
  LoopbackResponse late;
  late.delay_s = 1.5;  // GitHub opens the PR; the client never hears back
  f.github.add_fault({"POST", "/repos/acme/widgets/pulls", late, /*handle_then_delay=*/true});
  auto c = f.client(/*timeout_s=*/0.4);
  auto result = c.create_pull("t", "b", "kernelbot/saxpy", "main", false);
  EXPECT_FALSE(result.created);  // the retry met "already exists" and updated the one that landed
  EXPECT_EQ(result.pull.number, 1);
  EXPECT_EQ(f.github.pulls().size(), 1u);
  EXPECT_EQ(f.github.open_pulls_for("kernelbot/saxpy").size(), 1u);
}

TEST(GitHubClient, AlreadyExistsWithNothingToFindIsAnError) {
  Fixture f;
  f.github.add_fault(
      {"POST", "",
       json_response(
           422,
           R"({"message":"Validation Failed","documentation_url":")" + std::string(kDocs) +
               R"(","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for acme:kernelbot/saxpy."}]})")});
  auto c = f.client();
  try {
    c.create_pull("t", "b", "kernelbot/saxpy", "main", false);
    FAIL();
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 422);
    EXPECT_NE(std::string(e.what()).find("A pull request already exists"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(f.github.pulls().empty());
}

TEST(GitHubClient, UnknownRepositoryIsAClearError) {
  Fixture f;
  kb::bot::GitHubRetryPolicy p;
  p.sleep = [](double) {};
  GitHubClient c(f.github.api_url(), "acme/nope", kToken, p);
  try {
    c.open_pulls();
    FAIL();
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 404);
    EXPECT_NE(std::string(e.what()).find("[github].repository"), std::string::npos) << e.what();
  }
}

TEST(GitHubClient, RetriesAreLoggedWithoutTheToken) {
  Fixture f;
  f.github.add_fault({"GET", "", json_response(502, R"({"message":"Server Error"})")});
  f.github.add_fault({"GET", "", secondary_limit("1")});
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  auto c = f.client();
  c.open_pulls();
  spdlog::set_default_logger(previous);
  EXPECT_NE(log.str().find("retrying"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("secondary rate limit"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find(kToken), std::string::npos) << log.str();
}

TEST(GitHubClient, OtherValidationErrorsCarryGitHubsMessage) {
  Fixture f;
  f.github.add_fault(
      {"POST", "",
       json_response(
           422,
           R"({"message":"Validation Failed","documentation_url":")" + std::string(kDocs) +
               R"(","errors":[{"resource":"PullRequest","field":"base","code":"invalid","message":"base: branch 'mian' does not exist"}]})")});
  auto c = f.client();
  try {
    c.create_pull("t", "b", "kernelbot/saxpy", "mian", false);
    FAIL();
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 422);
    EXPECT_NE(std::string(e.what()).find("Validation Failed: base: branch 'mian' does not exist"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(f.github.count("POST", "/repos/acme/widgets/pulls"), 1);  // not retried
  EXPECT_TRUE(f.sleeps.empty());
}

TEST(GitHubClient, BadTokenIsReportedWithoutTheToken) {
  Fixture f;
  kb::bot::GitHubRetryPolicy p;
  p.sleep = [](double) {};
  GitHubClient c(f.github.api_url(), "acme/widgets", "wrong_token_value", p);
  try {
    c.open_pulls();
    FAIL();
  } catch (const GitHubError& e) {
    EXPECT_EQ(e.status, 401);
    EXPECT_NE(std::string(e.what()).find("Bad credentials"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("wrong_token_value"), std::string::npos);
  }
}

TEST(GitHubClient, ClosingCommentsFirstThenCloses) {
  Fixture f;
  f.github.add_pull("kernelbot/saxpy", "dup");
  auto c = f.client();
  c.close_pull(1, "Superseded by #2.");
  auto p = f.github.pulls()[0];
  EXPECT_EQ(p.state, "closed");
  ASSERT_EQ(p.comments.size(), 1u);
  EXPECT_EQ(p.comments[0], "Superseded by #2.");
  auto reqs = f.github.requests();
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_EQ(reqs[reqs.size() - 2].path, "/repos/acme/widgets/issues/1/comments");
  EXPECT_EQ(reqs.back().method, "PATCH");
}

TEST(GitHubClient, MutatingRequestsAreASecondApartAndReadsAreNotHeldBack) {
  Fixture f;
  f.github.add_pull("kernelbot/saxpy", "t");
  auto c = f.client();
  c.comment(1, "one");
  c.open_pulls();
  c.add_labels(1, {"kernelbot"});
  c.open_pulls();
  c.update_pull(1, "t2", "b2");
  EXPECT_EQ(f.sleeps, (std::vector<double>{1.0, 1.0}));  // before the labels and before the update
  EXPECT_DOUBLE_EQ(c.waited_s(), 2.0);
}

TEST(GitHubClient, MutationSpacingHoldsOnTheWire) {
  // The real clock and real sleeps: the fake sees the POSTs at least the interval apart.
  FakeGitHub github("acme/widgets", kToken);
  github.add_pull("kernelbot/saxpy", "t");
  kb::bot::GitHubRetryPolicy p;
  p.min_mutation_interval_s = 0.25;
  GitHubClient c(github.api_url(), "acme/widgets", kToken, p);
  c.comment(1, "one");
  c.comment(1, "two");
  c.add_labels(1, {"kernelbot"});
  auto requests = github.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (size_t i = 1; i < requests.size(); ++i)
    EXPECT_GE(requests[i].received_s - requests[i - 1].received_s, 0.24) << i;
}

TEST(GitHubClient, RequestsAreSentOneAtATime) {
  Fixture f;
  for (int i = 0; i < 4; ++i) {
    LoopbackResponse slow = json_response(200, "[]");
    slow.delay_s = 0.2;
    f.github.add_fault({"GET", "", slow});
  }
  auto c = f.client();
  std::thread other([&] {
    c.open_pulls();
    c.open_pulls();
  });
  c.open_pulls();
  c.open_pulls();
  other.join();
  EXPECT_EQ(f.github.count("GET", "/repos/acme/widgets/pulls"), 4);
  EXPECT_EQ(f.github.max_in_flight(), 1);
}

TEST(GitHubClient, NothingIsSentWhileTheLimitIsSpentUntilItsReset) {
  Fixture f;
  f.github.set_rate_limit_remaining(1);  // the first answer says 1 left, the second 0
  auto c = f.client(5, 6, /*budget_s=*/7200);
  c.open_pulls();
  EXPECT_EQ(c.rate_limit_remaining(), 1);
  c.open_pulls();
  EXPECT_EQ(c.rate_limit_remaining(), 0);
  EXPECT_TRUE(f.sleeps.empty());
  c.open_pulls();  // waits for x-ratelimit-reset (the fake says in an hour) before sending
  ASSERT_EQ(f.sleeps.size(), 1u);
  EXPECT_GE(f.sleeps[0], 3590.0);
  EXPECT_LE(f.sleeps[0], 3610.0);
  EXPECT_EQ(f.github.count("GET", "/repos/acme/widgets/pulls"), 3);

  Fixture g;
  g.github.set_rate_limit_remaining(0);
  auto tight = g.client(5, 6, /*budget_s=*/600);
  tight.open_pulls();
  try {
    tight.open_pulls();
    FAIL() << "expected the spent limit to be reported";
  } catch (const GitHubError& e) {
    EXPECT_NE(std::string(e.what()).find("not sent: the API rate limit is spent"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g.github.count("GET", "/repos/acme/widgets/pulls"), 1);  // the second was never sent
  EXPECT_TRUE(g.sleeps.empty());
}

TEST(GitHubClient, APullRequestBodyOverGitHubsLimitIsShortenedBeforeSending) {
  Fixture f;
  auto c = f.client();
  std::string body = "**saxpy is faster**\n\n";
  while (body.size() < 100000) body += "A line of the report that goes on and on, measured and true.\n";
  c.create_pull("t", body, "kernelbot/saxpy", "main", false);
  std::string sent = f.github.pulls()[0].body;
  EXPECT_LE(kb::bot::github_chars(sent), kb::bot::kGitHubBodyLimit);
  EXPECT_EQ(sent.rfind("**saxpy is faster**", 0), 0u);
  EXPECT_NE(sent.find("cut to stay under GitHub's limit of 65536 characters"), std::string::npos);
}

}  // namespace
