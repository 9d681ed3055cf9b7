// Bounds for numeric flags, with messages a person reads: "must be at least 1, got 0" where
// CLI11's own PositiveNumber says "Value 0 not in range 0.000000 to 1797693134862...". CLI11
// prefixes the option's name ("--jobs: must be at least 1, got 0").
#pragma once

#include <CLI/CLI.hpp>

namespace kb::bot {

// An integer or a number no smaller than `least`.
CLI::Validator at_least(double least);

// A number above zero (a time limit).
CLI::Validator above_zero();

}  // namespace kb::bot
