// Which input holds the special values at which size (special_values_check.h). One input at a
// time: with several float inputs holding infinities at once, an honest kernel's output depends
// on the sign of a value that rounds near zero (a layernorm's (x - mean) * rstd times an infinite
// gamma plus an infinite beta is NaN or -Inf by that sign alone, measured on an H200), so NaN
// against Inf would say nothing about the candidate. Host-only, unit-tested on a CPU.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kb::judge {

struct SpecialValuesCase {
  size_t size = 0;   // index of the size set
  size_t input = 0;  // index of the argument whose buffer gets the special values
};

// max(size_count, inputs.size()) cases: case k is at size k % size_count with inputs[k %
// inputs.size()], so every size and every input is covered at least once and a job with as many
// sizes as inputs costs what one case per size did. Empty when either is empty.
std::vector<SpecialValuesCase> plan_special_values(size_t size_count, const std::vector<size_t>& inputs);

// "x at rows=4096, cols=4096; gamma at rows=1000, cols=1000", in the order of `cases`; `label`
// names a size set, `name` an argument.
std::string describe_special_values_cases(const std::vector<SpecialValuesCase>& cases,
                                          const std::vector<std::string>& size_labels,
                                          const std::vector<std::string>& arg_names);

}  // namespace kb::judge
