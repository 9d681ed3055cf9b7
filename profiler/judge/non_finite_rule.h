// What a candidate's output element must be where the original's is NaN or infinite: the one rule
// the host's compare_output (output_comparator.h) and the judge's GPU comparison
// (device_checks.cu) share, so both always agree. A NaN of the original must stay a NaN (any
// payload, any sign: kernels that propagate a NaN rarely keep its bits); an infinity must be an
// infinity, of either sign: the sign of an infinity often comes from a value that rounds near zero
// multiplied by an infinite input (a layernorm's (x - mean) * rstd times an infinite gamma), which
// two honest orders of summation give different signs (seen on an H200). Where the original is
// finite, the tolerance decides, and a NaN or infinite candidate value never passes it. A header
// CUDA code can include.
#pragma once

#include <math.h>

#include "core/arg_types.h"  // KB_HOST_DEVICE

namespace kb::judge {

// 1 when candidate value `v` breaks the rule for original value `r`, 0 when it keeps it, -1 when
// `r` is finite (the tolerance rules apply instead).
KB_HOST_DEVICE inline int non_finite_mismatch(double r, double v) {
  if (isnan(r)) return isnan(v) ? 0 : 1;
  if (isinf(r)) return isinf(v) ? 0 : 1;
  return -1;
}

}  // namespace kb::judge
