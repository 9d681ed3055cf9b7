#include "common/http_client.h"

#include <gtest/gtest.h>

#include <chrono>

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

TEST(HttpClient, RetryAfterInSecondsAndAsADate) {
  kb::HttpResponse r;
  r.headers["retry-after"] = "7";
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r), 7.0);
  r.headers["retry-after"] = "Wed, 21 Oct 2015 07:28:00 GMT";  // in the past: no wait
  EXPECT_DOUBLE_EQ(*retry_after_seconds(r), 0.0);
  r.headers.clear();
  EXPECT_FALSE(retry_after_seconds(r).has_value());
  r.headers["x-ratelimit-remaining"] = "0";
  r.headers["x-ratelimit-reset"] = std::to_string(std::time(nullptr) + 30);
  EXPECT_NEAR(*retry_after_seconds(r), 30.0, 2.0);
}

TEST(HttpClient, BackoffGrowsIsCappedAndHonoursTheServer) {
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, std::nullopt, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(3, 1, 60, std::nullopt, 1.0), 8.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(10, 1, 60, std::nullopt, 1.0), 60.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(3, 1, 60, std::nullopt, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, 12.0, 0.1), 12.0);   // the server's wait wins
  EXPECT_DOUBLE_EQ(backoff_delay_s(0, 1, 60, 120.0, 0.1), 120.0); // even beyond the cap
}
