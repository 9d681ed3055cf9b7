// Whether a buffer's `count` is an element count the judge can lend at one size set: a whole
// number above zero whose bytes fit in 64 bits. `config check` reports a count that is negative,
// zero or overflows at any size set, at the count's own line, so that no command gets as far as
// allocating (or wrapping around) a buffer of that size.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/arg_types.h"

namespace kb::config {

// Why `count` is no usable element count of a `dtype` buffer with these sizes: empty when it is
// one, and when it cannot be evaluated for a reason reported elsewhere (a syntax error, a size
// name no size set defines, "TODO").
std::string count_problem(const std::string& count, DType dtype, const std::map<std::string, int64_t>& sizes);

}  // namespace kb::config
