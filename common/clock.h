// Wall-clock timestamps as they appear in results, archives and recordings, and elapsed time.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace kb {

// `t` in UTC as ISO 8601 with a Z suffix: "2026-11-24T12:52:11Z".
std::string iso8601_utc(std::time_t t);

// Now, as iso8601_utc.
std::string now_iso8601();

// Seconds elapsed since `start` on the steady clock: how long a phase of the work took.
double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace kb
