// What a candidate's output element must be where the original's is NaN or infinite: the one rule
// the host's compare_output (output_comparator.h) and the judge's GPU comparison
// (device_checks.cu) share, so both always agree. Where the original is NaN or infinite, the
// candidate must be NaN or infinite too (any payload, any sign, either of the two): which of them
// an honest kernel gives often hangs on a value that rounds near zero times an infinite input. A
// layernorm's (x - mean) * rstd times an infinite gamma is +Inf or -Inf by that value's sign and NaN
// where it is exactly 0, and two honest orders of summation disagree there (both seen on an H200:
// -Inf against Inf, and NaN against Inf at 1 element of 16M, x equal to its row's mean in one
// kernel's float arithmetic and not in the other's). What the rule still catches is the class that
// matters: a NaN or an infinity turned into a number (a kernel that reads NaN as 0, a max that
// drops a NaN, a masked row zeroed). Where the original is finite, the tolerance decides, and a
// NaN or infinite candidate value never passes it. A header CUDA code can include.
#pragma once

#include <math.h>

#include "core/arg_types.h"  // KB_HOST_DEVICE

namespace kb::judge {

// 1 when candidate value `v` breaks the rule for original value `r`, 0 when it keeps it, -1 when
// `r` is finite (the tolerance rules apply instead).
KB_HOST_DEVICE inline int non_finite_mismatch(double r, double v) {
  if (isfinite(r)) return -1;
  return isfinite(v) ? 1 : 0;
}

}  // namespace kb::judge
