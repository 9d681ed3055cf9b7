// Numbers as kernelbot shows them, the same in the terminal tables, the search tree and the PR
// body, so a reviewer comparing a log with a PR reads identical digits.
#pragma once

#include <string>

namespace kb {

// `digits` decimals, fixed point: format_fixed(1.23456, 2) == "1.23".
std::string format_fixed(double value, int digits);

// A time in microseconds, without the unit: three decimals under 10 us (a 0.5% difference of a
// 5 us kernel is 0.025 us), two under 1000 us, one above; "-" when not measured (<= 0).
std::string format_us(double microseconds);

// A fraction as a percentage with two decimals: 0.0042 -> "0.42%".
std::string format_fraction_percent(double fraction);

}  // namespace kb
