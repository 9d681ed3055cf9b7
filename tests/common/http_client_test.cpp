#include "common/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "tests/support/loopback_http_server.h"

using kb::backoff_delay_s;
using kb::http_send;
using kb::HttpRequest;
using kb::HttpTransportError;
using kb::retry_after_seconds;
using kb::testing::LoopbackHttpServer;
using kb::testing::LoopbackRequest;
using kb::testing::LoopbackResponse;

TEST(HttpClient, SendsMethodHeadersAndBodyAndReadsTheReply) {
  LoopbackHttpServer server([](const LoopbackRequest& r) {
    return kb::testing::json_response(201, "{\"echo\":\"" + r.body + "\"}", {{"X-Thing", "yes"}});
  });
  HttpRequest req{"PATCH", server.base_url() + "/a/b?x=1", {{"Authorization", "Bearer t0k"}}, "hello", 5, 5};
  auto resp = http_send(req);
  EXPECT_EQ(resp.status, 201);
  EXPECT_EQ(resp.body, "{\"echo\":\"hello\"}");
  EXPECT_EQ(resp.header("x-thing"), "yes");
  EXPECT_EQ(resp.header("X-THING"), "yes");
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "PATCH");
  EXPECT_EQ(seen[0].target, "/a/b?x=1");
  EXPECT_EQ(seen[0].path, "/a/b");
  EXPECT_EQ(seen[0].headers["authorization"], "Bearer t0k");
}

TEST(HttpClient, ASlowServerIsATimeout) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = kb::testing::json_response(200, "{}");
    r.delay_s = 3;
    return r;
  });
  auto start = std::chrono::steady_clock::now();
  try {
    http_send({"GET", server.base_url() + "/", {}, "", 0.3, 1});
    FAIL() << "expected a timeout";
  } catch (const HttpTransportError& e) {
    EXPECT_TRUE(e.timed_out) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(HttpClient, AHangUpIsATransportErrorNotATimeout) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r;
    r.hang_up = true;
    return r;
  });
  try {
    http_send({"GET", server.base_url() + "/", {}, "", 5, 1});
    FAIL() << "expected a transport error";
  } catch (const HttpTransportError& e) {
    EXPECT_FALSE(e.timed_out);
  }
}

TEST(HttpClient, AStreamedReplyMayOutlastTheIdleLimitWhileBytesKeepComing) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = kb::testing::json_response(200, "");
    for (int i = 0; i < 6; ++i) r.stream.emplace_back(0.2, "data: " + std::to_string(i) + "\n\n");
    return r;
  });
  HttpRequest req{"POST", server.base_url() + "/", {}, "{}", 0.5, 1};
  req.idle_timeout_s = 0.5;  // the whole transfer takes 1.2 s: over timeout_s, never idle that long
  std::string pieces;
  int calls = 0;
  req.on_body = [&](std::string_view piece) {
    pieces += piece;
    ++calls;
  };
  auto resp = http_send(req);
  EXPECT_EQ(resp.status, 200);
  EXPECT_EQ(resp.body, "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n");
  EXPECT_EQ(pieces, resp.body);
  EXPECT_GE(calls, 2);  // handed over as they came, not once at the end
}

TEST(HttpClient, SilenceLongerThanTheIdleLimitIsATimeout) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = kb::testing::json_response(200, "");
    r.stream = {{0.0, "data: first\n\n"}, {5.0, "data: too late\n\n"}};
    return r;
  });
  HttpRequest req{"POST", server.base_url() + "/", {}, "{}", 60, 1};
  req.idle_timeout_s = 0.4;
  std::string pieces;
  req.on_body = [&](std::string_view piece) { pieces += piece; };
  auto start = std::chrono::steady_clock::now();
  try {
    http_send(req);
    FAIL() << "expected a timeout";
  } catch (const HttpTransportError& e) {
    EXPECT_TRUE(e.timed_out) << e.what();
    EXPECT_TRUE(e.sent);
    EXPECT_NE(std::string(e.what()).find("no data for 0.4 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  EXPECT_EQ(pieces, "data: first\n\n");
}

TEST(HttpClient, AnUnreachableServerWasNeverSent) {
  int port = 0;
  {
    LoopbackHttpServer gone([](const LoopbackRequest&) { return LoopbackResponse{}; });
    port = gone.port();
  }
  try {
    http_send({"POST", "http://127.0.0.1:" + std::to_string(port) + "/", {}, "{}", 5, 1});
    FAIL() << "expected a transport error";
  } catch (const HttpTransportError& e) {
    EXPECT_FALSE(e.sent) << e.what();
    EXPECT_FALSE(e.timed_out) << e.what();
  }
}

TEST(HttpClient, RetryAfterInSecondsAndAsADate) {
  kb::HttpResponse r;
  r.headers["retry-after"] = "7";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r), 7.0);
  r.headers["retry-after"] = "Wed, 21 Oct 2015 07:28:00 GMT";  // in the past: no wait
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r), 0.0);
  r.headers.clear();
  EXPECT_FALSE(retry_after_seconds(r).has_value());
}

TEST(HttpClient, GitHubsEpochResetIsReadOnlyForGitHub) {
  kb::HttpResponse r;
  r.headers["x-ratelimit-remaining"] = "0";
  r.headers["x-ratelimit-reset"] = std::to_string(std::time(nullptr) + 30);
  EXPECT_NEAR(*retry_after_seconds(r, kb::RateLimitHeaders::github), 30.0, 2.0);
  // Other APIs use the same name for other things (OpenRouter: epoch milliseconds): not a wait.
  EXPECT_FALSE(retry_after_seconds(r).has_value());
  r.headers["x-ratelimit-reset"] = "1767225600000";
  EXPECT_FALSE(retry_after_seconds(r, kb::RateLimitHeaders::openai).has_value());
}

TEST(HttpClient, OpenAiStyleResetDurationsAndRetryAfterMs) {
  using kb::RateLimitHeaders;
  kb::HttpResponse r;
  r.headers["x-ratelimit-remaining-requests"] = "0";
  r.headers["x-ratelimit-reset-requests"] = "6m0s";
  r.headers["x-ratelimit-remaining-tokens"] = "4000";
  r.headers["x-ratelimit-reset-tokens"] = "20ms";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r, RateLimitHeaders::openai), 360.0);  // the spent limit's reset
  r.headers["x-ratelimit-remaining-requests"] = "3";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r, RateLimitHeaders::openai), 0.02);  // none spent: the sooner one
  EXPECT_FALSE(retry_after_seconds(r).has_value());                           // not for other APIs
  r.headers["retry-after"] = "2";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r, RateLimitHeaders::openai), 2.0);  // Retry-After wins
  r.headers["retry-after-ms"] = "1500";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r, RateLimitHeaders::openai), 1.5);  // and retry-after-ms over it
}

TEST(HttpClient, ParsesGoStyleDurations) {
  using kb::parse_duration_s;
  EXPECT_DOUBLE_EQ(*parse_duration_s("1s"), 1.0);
  EXPECT_DOUBLE_EQ(*parse_duration_s("6m0s"), 360.0);
  EXPECT_DOUBLE_EQ(*parse_duration_s("20ms"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_duration_s("1h2m3.5s"), 3723.5);
  EXPECT_DOUBLE_EQ(*parse_duration_s("2.5"), 2.5);
  EXPECT_FALSE(parse_duration_s("").has_value());
  EXPECT_FALSE(parse_duration_s("soon").has_value());
  EXPECT_FALSE(parse_duration_s("5 fortnights").has_value());
}

TEST(HttpClient, BackoffGrowsIsCappedAndHonoursTheServer) {
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, std::nullopt, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(3, 1, 60, std::nullopt, 1.0), 8.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(10, 1, 60, std::nullopt, 1.0), 60.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(3, 1, 60, std::nullopt, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, 12.0, 0.1), 12.0);    // the server's wait wins
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, 120.0, 0.1), 120.0);  // even beyond the cap
}

// A slow answer is not a silent one: the caller hears how long it has waited, then gets the reply.
TEST(HttpClient, ASlowAnswerIsReportedWhileItIsAwaited) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    LoopbackResponse r = kb::testing::json_response(200, "{}");
    r.delay_s = 1.5;
    return r;
  });
  HttpRequest req{"GET", server.base_url() + "/", {}, "", 5, 1};
  std::vector<double> notes;
  req.still_waiting_after_s = 0.2;
  req.on_still_waiting = [&notes](double waited_s) { notes.push_back(waited_s); };
  EXPECT_EQ(http_send(req).status, 200);
  ASSERT_FALSE(notes.empty());
  EXPECT_GE(notes.front(), 0.2);
  EXPECT_LT(notes.front(), 1.5);
}
