// Timestamps in results and recordings: ISO 8601 in UTC.
#include "common/clock.h"

#include <gtest/gtest.h>

#include <regex>
#include <thread>

TEST(Clock, FormatsUtcAsIso8601) {
  EXPECT_EQ(kb::iso8601_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(kb::iso8601_utc(1795956731), "2026-11-29T12:52:11Z");
  EXPECT_TRUE(std::regex_match(kb::now_iso8601(), std::regex(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

TEST(Clock, SecondsSinceCountsTheSteadyClock) {
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double s = kb::seconds_since(start);
  EXPECT_GE(s, 0.03);
  EXPECT_LT(s, 5.0);
  EXPECT_LT(kb::seconds_since(std::chrono::steady_clock::now()), 0.5);
}
