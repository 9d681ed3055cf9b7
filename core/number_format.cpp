#include "core/number_format.h"

#include <cstdio>

namespace kb {

std::string format_fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string format_us(double microseconds) {
  if (microseconds <= 0) return "-";
  return format_fixed(microseconds, microseconds < 10 ? 3 : microseconds < 1000 ? 2 : 1);
}

std::string format_speedup(double ratio) {
  if (!(ratio > 0)) return "-";  // also NaN
  return format_fixed(ratio, ratio < 2 ? 3 : ratio < 20 ? 2 : 1) + "x";
}

std::string format_fraction_percent(double fraction) { return format_fixed(fraction * 100, 2) + "%"; }

}  // namespace kb
