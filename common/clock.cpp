#include "common/clock.h"

namespace kb {

std::string iso8601_utc(std::time_t t) {
  std::tm utc{};
  gmtime_r(&t, &utc);  // thread-safe, unlike std::gmtime: the search stores results from several threads
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string now_iso8601() { return iso8601_utc(std::time(nullptr)); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kb
