// Whether the original's outputs on special-value inputs (special_values.h) are defined enough to
// hold a candidate to them: the original, called twice on the same inputs, agrees with itself by
// the comparison rules (NaN where NaN, an infinity where an infinity, finite values within the output's
// tolerance: NaN payloads and atomics' rounding aside), and each float output keeps some finite
// values (an output of nothing but NaN and Inf says nothing about the candidate's arithmetic).
// Host-only: the judge reads both calls' outputs back first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {

struct SpecialOutputs {
  bool defined = true;
  std::string why;                       // when not defined: "output y holds no finite value (...)", for skipped_checks
  int64_t nan = 0, inf = 0, finite = 0;  // the first call's elements (poison left by the original: none)
};

// `first` and `second` are output `name`'s `count` elements of type `t` from two calls of the
// original on the same inputs; `scale` (may be null) is the output's error scale for them
// (error_scale = "abs_inputs": compare_output's scaled rule).
SpecialOutputs original_outputs_defined(DType t, const std::string& name, const void* first, const void* second,
                                        size_t count, Tolerance tol, const void* scale = nullptr);

}  // namespace kb::judge
