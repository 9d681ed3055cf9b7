// Arithmetic over named sizes, as written in a [[kernel]] table: "n", "rows*cols", "ceil_div(n, 256)".
// Used for element counts, size/scalar values, FLOP and byte counts.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace kb::config {

// A size expression of the config is wrong: the user must change what they wrote (exit 2).
struct ExpressionError : UsageError {
  using UsageError::UsageError;
};

// Evaluates `text` with the names bound by `sizes`. Integer arithmetic stays exact as long as
// every operand is an integer, and integer division truncates as in C ("(n + 255) / 256");
// a literal with a dot or exponent makes the result floating ("1.0 / n").
// Throws ExpressionError with the offending position on a syntax error or an unknown name.
double evaluate_expression(const std::string& text, const std::map<std::string, int64_t>& sizes);

// The same, requiring an exact non-negative integer result (element counts, size arguments).
int64_t evaluate_count(const std::string& text, const std::map<std::string, int64_t>& sizes);

// Every name the expression refers to (function names excluded); throws on a syntax error.
std::set<std::string> expression_names(const std::string& text);

}  // namespace kb::config
