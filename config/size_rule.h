// A size name's shape rule, as a [[kernel]] table states it:
// `size_rules = { n = { multiple_of = 8, min = 64, max = 1048576 } }`. The user's code supports
// only these values; the judge's generalization sizes (verification at sizes nobody configured)
// stay inside them, and every configured size set must satisfy them too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kb::config {

struct SizeRule {
  int64_t multiple_of = 1;
  int64_t min = 1;
  int64_t max = 0;  // 0 = no upper bound
  bool operator==(const SizeRule&) const = default;
};

// Whether `value` satisfies `rule`.
bool size_allowed(const SizeRule& rule, int64_t value);

// Why `value` breaks `rule` ("is not a multiple of 8"), or "" when it does not.
std::string size_rule_violation(const SizeRule& rule, int64_t value);

// The smallest allowed value >= `at_least`, or none when `rule`'s max comes first.
std::optional<int64_t> first_allowed_from(const SizeRule& rule, int64_t at_least);

// The largest allowed value <= `at_most`, or none when `rule`'s min comes first.
std::optional<int64_t> last_allowed_up_to(const SizeRule& rule, int64_t at_most);

}  // namespace kb::config
