// Numbers as kernelbot shows them, the same in the terminal tables, the search tree and the PR
// body, so a reviewer comparing a log with a PR reads identical digits. In core/ because both sides
// of the process boundary write them: the judge's verdict reasons (speedup_rule) and kernelbot's tables.
#pragma once

#include <string>

namespace kb {

// `digits` decimals, fixed point: format_fixed(1.23456, 2) == "1.23".
std::string format_fixed(double value, int digits);

// A time in microseconds, without the unit: three decimals under 10 us (a 0.5% difference of a
// 5 us kernel is 0.025 us), two under 1000 us, one above; "-" when not measured (<= 0).
std::string format_us(double microseconds);

// A speedup (a ratio of times) with its "x", keeping the digits that show a 0.5% difference, as
// format_us does: three decimals under 2x (where [bench].min_speedup, the screening's margins and
// the noise live: 1.046x is under 1.050x, where two decimals would print 1.05x for both), two
// under 20x, one above: "0.950x", "1.531x", "3.65x", "42.7x"; "-" when not measured (<= 0). Every
// speedup kernelbot shows, from a log line to a PR title, goes through this one function.
std::string format_speedup(double ratio);

// A fraction as a percentage with two decimals: 0.0042 -> "0.42%".
std::string format_fraction_percent(double fraction);

}  // namespace kb
