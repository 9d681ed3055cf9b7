#include "config/size_rule.h"

#include <algorithm>

namespace kb::config {

bool size_allowed(const SizeRule& rule, int64_t value) { return size_rule_violation(rule, value).empty(); }

std::string size_rule_violation(const SizeRule& rule, int64_t value) {
  if (value < rule.min) return "is below min = " + std::to_string(rule.min);
  if (rule.max > 0 && value > rule.max) return "is above max = " + std::to_string(rule.max);
  if (rule.multiple_of > 1 && value % rule.multiple_of != 0)
    return "is not a multiple of " + std::to_string(rule.multiple_of);
  return "";
}

std::optional<int64_t> first_allowed_from(const SizeRule& rule, int64_t at_least) {
  const int64_t m = std::max<int64_t>(1, rule.multiple_of);
  const int64_t from = std::max({at_least, rule.min, int64_t{1}});
  const int64_t v = (from + m - 1) / m * m;
  if (rule.max > 0 && v > rule.max) return std::nullopt;
  return v;
}

std::optional<int64_t> last_allowed_up_to(const SizeRule& rule, int64_t at_most) {
  const int64_t m = std::max<int64_t>(1, rule.multiple_of);
  const int64_t to = rule.max > 0 ? std::min(at_most, rule.max) : at_most;
  if (to < 1) return std::nullopt;
  const int64_t v = to / m * m;
  if (v < std::max<int64_t>(rule.min, 1)) return std::nullopt;
  return v;
}

}  // namespace kb::config
