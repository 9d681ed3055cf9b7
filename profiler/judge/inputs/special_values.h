// The special-values inputs: +-Inf, NaN, -0 and denormals, mixed into ordinary inputs of float
// buffers (special_values_check.h says when the judge uses them).
// Which elements become special, and what they hold, is a pure function of (seed, stream, index)
// in a header the host and CUDA device code both compile, like input_distribution.h.
//
// Buffers are cut into regions of 2^region_shift elements (64 to 4096: a buffer of any size has
// several), and each region draws what it is:
//   clean   (1/2):  left as generated, so most rows of a row-wise kernel stay finite and informative;
//   sprinkled (3/8): each element special with probability 1/32 (~3%), of a kind drawn per element;
//   masked  (1/8):  every element -Inf (a masked-out block of attention scores, a log of zero).
// A row of a row-wise kernel (a softmax, a layernorm) is then clean, holds a few specials, or is
// wholly or partly -Inf: the cases a masked softmax or a log-sum-exp must get right.
// Values near the type's largest are not mixed in here: finite outputs computed from them are
// ill-conditioned (a layernorm of a row holding 2^-13 of FLT_MAX differs by a percent between two
// honest orders of summation, seen on an H200), so the ordinary tolerance cannot judge them. The
// main trials' `extreme` distribution (input_distribution.h) covers magnitudes near the type's
// limits, at sizes chosen so that honest kernels stay within tolerance.
#pragma once

#include <math.h>
#include <stdint.h>

#include "profiler/judge/inputs/input_distribution.h"

namespace kb::judge {

enum class SpecialKind {
  none,  // the element keeps its ordinary value
  nan,   // a quiet NaN
  pos_inf,
  neg_inf,
  neg_zero,  // -0.0
  denormal,  // a subnormal of the type, either sign
};

inline constexpr int kSpecialKindCount = 6;

// log2 of the region size for a buffer of `count` elements: count/8 rounded down to a power of
// two, within [2^6, 2^12].
KB_HOST_DEVICE inline int special_region_shift(uint64_t count) {
  int shift = 6;
  while (shift < 12 && (uint64_t{1} << (shift + 1)) <= count / 8) ++shift;
  return shift;
}

// Streams of random bits of their own, apart from the ordinary values' (input_distribution.h).
inline constexpr uint64_t kSpecialRegionStream = 0x5BEC1A1DEADBEEFull;
inline constexpr uint64_t kSpecialElementStream = 0x0DDBA11C0FFEEull;

// What element `i` of a buffer of `count` elements (stream `stream`) holds under seed `seed`.
KB_HOST_DEVICE inline SpecialKind special_kind(uint64_t seed, uint64_t stream, uint64_t i, uint64_t count) {
  const uint64_t region = i >> special_region_shift(count);
  const double r = unit_random(seed, stream ^ kSpecialRegionStream, region);
  if (r < 0.5) return SpecialKind::none;
  if (r >= 0.875) return SpecialKind::neg_inf;
  const double u = unit_random(seed, stream ^ kSpecialElementStream, i);
  if (u >= 1.0 / 32) return SpecialKind::none;
  // u / (1/32) is uniform in [0, 1) again: it picks one of the five special kinds.
  const int k = 1 + static_cast<int>(u * 32 * (kSpecialKindCount - 1));
  return static_cast<SpecialKind>(k < kSpecialKindCount ? k : kSpecialKindCount - 1);
}

// The largest finite value of a float type, and its smallest positive subnormal.
KB_HOST_DEVICE inline double float_type_max(DType t) {
  switch (t) {
    case DType::float64: return 1.7976931348623157e308;
    case DType::float16: return 65504.0;
    case DType::bfloat16: return 3.3895313892515355e38;
    default: return 3.4028234663852886e38;
  }
}
KB_HOST_DEVICE inline double float_type_min_subnormal(DType t) {
  switch (t) {
    case DType::float64: return 4.9406564584124654e-324;
    case DType::float16: return 5.9604644775390625e-08;
    case DType::bfloat16: return 9.183549615799121e-41;
    default: return 1.401298464324817e-45;
  }
}

// The value of a special element of kind `k` (not none) of a buffer of float type `t`, as a
// double that converts to the type exactly (double -> float -> half/bfloat16 keeps it).
KB_HOST_DEVICE inline double special_value(DType t, SpecialKind k, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random2(seed, stream ^ kSpecialElementStream, i);
  switch (k) {
    case SpecialKind::nan: return NAN;
    case SpecialKind::pos_inf: return INFINITY;
    case SpecialKind::neg_inf: return -INFINITY;
    case SpecialKind::neg_zero: return -0.0;
    case SpecialKind::denormal: {
      // 1 to 8 times the smallest subnormal: a subnormal of every float type.
      const double v = float_type_min_subnormal(t) * (1 + ::floor(8 * u));
      return unit_random2(seed, stream, i) < 0.5 ? -v : v;
    }
    case SpecialKind::none: break;
  }
  return 0;
}

}  // namespace kb::judge
