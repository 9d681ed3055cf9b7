// The value of every generated input element, as a pure function of (seed, stream, index): the
// formulas behind fill_random (input_generator.h), in a header that host code and CUDA device
// code both compile, so a GPU kernel can generate the same inputs in place. Nothing here needs
// the C++ standard library: only <math.h> functions that nvcc also provides in device code
// (sqrt, log1p, cos, pow, exp2, ldexp, floor, round, fabs, copysign) and plain integer arithmetic.
//
// Bit-exactness between host and device: the integer hashing, uniform, mixed_sign, offset's grid
// and every integer type are exact on both sides. normal, large and extreme go through log1p, cos,
// pow and exp2, which neither glibc nor CUDA rounds correctly: a device value may differ from the
// host's in the last bit of the double (visible in float64 buffers; after rounding to float32 or
// narrower only when the double lies within that bit of a rounding tie). A device fill stores the
// double as the host does: double -> float -> half/bfloat16 (round to nearest even at each step),
// integers truncated toward zero after clamping to the type (none of the values here need either).
#pragma once

#include <math.h>
#include <stdint.h>

#include "core/arg_types.h"  // DType, its questions, and KB_HOST_DEVICE

namespace kb::judge {

// No distribution yields zero (zeros hide unwritten outputs and wrong indexing), and no float
// distribution yields a value that is not finite.
enum class Distribution {
  uniform,     // floats in [0.01, 1); integers in [1, 100]
  normal,      // N(0, 1) with |x| >= 1e-3; integers round(N(0, 20)) clamped to [-127, 127] (unsigned:
               // |.| in [1, 127]), never 0
  large,       // floats log-uniform in [1e3, 1e6) (float16: [1e2, 1e3)), positive; integers in
               // [min(1000, max/2), min(1e6, max)] (8-bit types: the top half of their range)
  mixed_sign,  // both signs, |x| in [0.01, 10); integers in [-100, 100] \ {0} (unsigned: [1, 100])
  offset,      // a large mean against a small spread, one mean per buffer: see offset_value
  extreme,     // magnitudes near the type's limits that a correct kernel survives: see extreme_value
};

inline constexpr int kDistributionCount = 6;

// The largest value of an integer type (as a double; exact for all but int64).
KB_HOST_DEVICE inline double int_type_max(DType t) {
  switch (t) {
    case DType::int8: return 127;
    case DType::uint8: return 255;
    case DType::int32: return 2147483647.0;
    case DType::uint32: return 4294967295.0;
    default: return 9.0e18;
  }
}

// --- The random bits -------------------------------------------------------------------------

KB_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 64 random bits for element `index` of stream `stream` (one stream per buffer of a call).
KB_HOST_DEVICE inline uint64_t element_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream + 0x632BE59BD9B4E019ull)) + index);
}

// The top 53 bits as a double in [0, 1).
KB_HOST_DEVICE inline double to_unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// The uniform double in [0, 1) that element `index` of stream `stream` draws.
KB_HOST_DEVICE inline double unit_random(uint64_t seed, uint64_t stream, uint64_t index) {
  return to_unit(element_bits(seed, stream, index));
}

// A second uniform for the same element, independent of the first (a shifted stream).
KB_HOST_DEVICE inline double unit_random2(uint64_t seed, uint64_t stream, uint64_t index) {
  return to_unit(element_bits(seed, stream ^ 0xA5A5A5A5A5A5A5A5ull, index));
}

// A uniform drawn once per buffer (`which` numbers the draws), for the parameters offset picks per
// buffer: every element computes it again, so a parallel fill needs no shared state.
KB_HOST_DEVICE inline double buffer_random(uint64_t seed, uint64_t stream, uint64_t which) {
  return to_unit(element_bits(seed, stream ^ 0x5DEECE66D1CE4E5Bull, ~which));
}

// A standard normal from two uniforms (Box-Muller), u in [0, 1) and u2 in [0, 1).
KB_HOST_DEVICE inline double box_muller(double u, double u2) {
  return ::sqrt(-2.0 * ::log1p(-u)) * ::cos(6.283185307179586 * u2);
}

// --- offset ------------------------------------------------------------------------------------
//
// Rows whose mean is large against their spread: the inputs where E[x^2] - E[x]^2 cancels
// catastrophically (a one-pass variance loses about eps * (mean/spread)^2 of the variance), and
// where a half-precision accumulator overflows or stops growing. Each buffer gets one mean, sign
// and magnitude drawn from (seed, stream); each element is
//     x = sign * grid * (center + k),   k = round(spread * N(0, 1)) clamped to [-clamp, clamp],
// with `grid` a power of two. Every x is then an integer multiple of `grid` of magnitude at most
// (center + clamp) * grid, exactly representable in the type, and a partial sum of up to 2^14
// elements of one buffer, taken in any order, is an integer multiple of `grid` of at most
// 2^14 * (center + clamp) grids: 2^24 for float32, float16 and bfloat16, so exact in float32
// (where half-precision kernels accumulate), and 2^34 for float64, exact below its 2^53. So an
// honest reordering of a sum, or of a two-pass variance's mean, agrees with the original to the
// last bit, and a kernel judged on these rows is judged on its algorithm, not on the original's
// rounding. (bfloat16 rows have a coarser spread, 1 grid, to fit its 8-bit significand.)
//
//   type      center  spread  clamp  grid               mean magnitude   mean / spread
//   float32      960       4     64  2^0 .. 2^3         960 .. 7680      240
//   float64  1044480      64   4096  2^-10 .. 2^-7      1020 .. 8160     16320
//   float16      960       4     64  2^-10 .. 2^-7      0.94 .. 7.5      240
//   bfloat16     240       1     16  2^2 .. 2^5         960 .. 7680      240
//
// float32 and bfloat16: any float16 accumulation of more than 68 elements overflows (65504);
// float16 keeps the mean small enough that a row sum of 8192 elements still fits the float16
// output, and a float16 accumulator stalls instead (from a partial sum of about 2^11 times the
// mean on, adding the mean no longer changes it). float64's ratio is large enough that a one-pass
// variance in double misses float64's tolerance (eps64 * 16320^2 ~ 6e-8), while a two-pass one
// starts from an exact mean.
// Integers: center +-(1000 .. 10000) per buffer (8-bit: +-100, uint8: 200; unsigned: positive),
// k = round(4 * N(0, 1)) clamped to [-16, 16].
struct OffsetShape {
  int first_grid_exponent;       // grid = 2^(first + 0..3), drawn per buffer
  double center, spread, clamp;  // in grid units
};

KB_HOST_DEVICE inline OffsetShape offset_shape(DType t) {
  switch (t) {
    case DType::float64: return {-10, 1044480.0, 64.0, 4096.0};
    case DType::float16: return {-10, 960.0, 4.0, 64.0};
    case DType::bfloat16: return {2, 240.0, 1.0, 16.0};
    default: return {0, 960.0, 4.0, 64.0};
  }
}

// The sign of a buffer's offset mean: negative for half the buffers (never for unsigned types).
KB_HOST_DEVICE inline double offset_sign(DType t, uint64_t seed, uint64_t stream) {
  return !dtype_is_unsigned(t) && buffer_random(seed, stream, 1) < 0.5 ? -1.0 : 1.0;
}

KB_HOST_DEVICE inline double offset_value(DType t, uint64_t seed, uint64_t stream, uint64_t i) {
  double k = ::round((dtype_is_float(t) ? offset_shape(t).spread : 4.0) *
                     box_muller(unit_random(seed, stream, i), unit_random2(seed, stream, i)));
  const double sign = offset_sign(t, seed, stream);
  const double b = buffer_random(seed, stream, 0);
  if (dtype_is_float(t)) {
    const OffsetShape s = offset_shape(t);
    k = k < -s.clamp ? -s.clamp : (s.clamp < k ? s.clamp : k);
    const double grid = ::ldexp(1.0, s.first_grid_exponent + static_cast<int>(::floor(4.0 * b)));
    return sign * grid * (s.center + k);
  }
  k = k < -16.0 ? -16.0 : (16.0 < k ? 16.0 : k);
  double center = 1000.0 + ::floor(9001.0 * b);
  if (t == DType::int8) center = 100;
  if (t == DType::uint8) center = 200;
  return sign * center + k;
}

// --- extreme -----------------------------------------------------------------------------------
//
// Magnitudes near the type's limits, chosen so that a correct kernel survives them:
//   float32, bfloat16: log-uniform in [2^48, 2^52) (2.8e14 .. 4.5e15), positive.
//   float64:           log-uniform in [2^496, 2^500) (~2e149 .. 3e150), positive.
//     That is sqrt(max) / 2^16 .. sqrt(max) / 2^12: the product of two such values (a square, a
//     dot product's term) summed over 2^16 terms stays 2^8 below the type's max, so sums, dot
//     products, matrix products and variances of real sizes stay finite in the type itself, while
//     a single element overflows a float16 intermediate (float64: a float32 one).
//   float16:           log-uniform in [2^8, 2^10) (256 .. 1024), positive: a square overflows
//     float16 (65504) but not float32, so a half kernel that keeps squares and sums in float32
//     survives and one that keeps them in half does not. There is no float16 magnitude at which
//     a sum of a few thousand elements fits the float16 output yet overflows a half accumulator.
//   Positive, like large: mixed signs would make elementwise outputs (a*x + y) cancel toward zero,
//   where a relative tolerance cannot judge an honest rounding; offset's negative means cover
//   negative inputs.
//   32- and 64-bit integers: |x| in [2^(B-13), 2^(B-12)) with B the type's value bits (int32
//     [2^18, 2^19), uint32 [2^19, 2^20), int64 [2^50, 2^51)): the largest magnitudes of which a
//     sum of 4096 cannot overflow the type. Signed types get both signs (integer sums are exact).
//   8-bit integers: their limits, int8 +-[100, 127], uint8 [200, 255] (C++ widens 8-bit operands
//     to int before any arithmetic, so only a kernel that keeps 8-bit intermediates overflows).
KB_HOST_DEVICE inline double extreme_value(DType t, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random(seed, stream, i);
  if (dtype_is_float(t)) {
    double lo = 48, hi = 52;
    if (t == DType::float64) lo = 496, hi = 500;
    if (t == DType::float16) lo = 8, hi = 10;
    return ::exp2(lo + (hi - lo) * u);
  }
  const double u2 = unit_random2(seed, stream, i);
  double magnitude;
  switch (t) {
    case DType::int8: magnitude = 100 + ::floor(28 * u2); break;
    case DType::uint8: magnitude = 200 + ::floor(56 * u2); break;
    case DType::int32: magnitude = 262144.0 * (1 + u2); break;
    case DType::uint32: magnitude = 524288.0 * (1 + u2); break;
    default: magnitude = 1125899906842624.0 * (1 + u2); break;  // int64: 2^50
  }
  magnitude = ::floor(magnitude);
  if (dtype_is_unsigned(t)) return magnitude;
  return u < 0.5 ? -magnitude : magnitude;
}

// --- Every distribution ------------------------------------------------------------------------

// Element `i` of stream `stream` for a float type (as a double, before rounding to the type).
KB_HOST_DEVICE inline double float_value(DType t, Distribution d, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random(seed, stream, i);
  switch (d) {
    case Distribution::uniform: return 0.01 + 0.99 * u;
    case Distribution::normal: {
      const double z = box_muller(u, unit_random2(seed, stream, i));
      return ::fabs(z) >= 1e-3 ? z : ::copysign(1e-3, z);
    }
    case Distribution::large: {
      const double lo = t == DType::float16 ? 2.0 : 3.0;  // log10 of the smallest magnitude
      const double hi = t == DType::float16 ? 3.0 : 6.0;
      return ::pow(10.0, lo + (hi - lo) * u);
    }
    case Distribution::mixed_sign: {
      const double magnitude = 0.01 + 9.99 * unit_random2(seed, stream, i);
      return u < 0.5 ? -magnitude : magnitude;
    }
    case Distribution::offset: return offset_value(t, seed, stream, i);
    case Distribution::extreme: return extreme_value(t, seed, stream, i);
  }
  return 1.0;
}

// Element `i` of stream `stream` for an integer type (an integer-valued double in the type's range).
KB_HOST_DEVICE inline double int_value(DType t, Distribution d, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random(seed, stream, i);
  switch (d) {
    case Distribution::uniform: return 1 + ::floor(100 * u);
    case Distribution::normal: {
      const double u2 = unit_random2(seed, stream, i);
      double z = ::round(20.0 * ::sqrt(-2.0 * ::log1p(-u)) * ::cos(6.283185307179586 * u2));
      if (dtype_is_unsigned(t)) z = ::fabs(z);
      const double lo = dtype_is_unsigned(t) ? 1.0 : -127.0;
      z = z < lo ? lo : (127.0 < z ? 127.0 : z);
      return z == 0 ? 1 : z;
    }
    case Distribution::large: {
      const double type_max = int_type_max(t);
      const double hi = type_max < 1e6 ? type_max : 1e6;
      const double half = ::floor(hi / 2);
      const double lo = half < 1000.0 ? half : 1000.0;
      return lo + ::floor((hi - lo + 1) * u);
    }
    case Distribution::mixed_sign: {
      const double magnitude = 1 + ::floor(100 * unit_random2(seed, stream, i));
      if (dtype_is_unsigned(t)) return magnitude;
      return u < 0.5 ? -magnitude : magnitude;
    }
    case Distribution::offset: return offset_value(t, seed, stream, i);
    case Distribution::extreme: return extreme_value(t, seed, stream, i);
  }
  return 1;
}

// Element `i` of stream `stream` of a buffer of type `t`: what fill_random stores there.
KB_HOST_DEVICE inline double element_value(DType t, Distribution d, uint64_t seed, uint64_t stream, uint64_t i) {
  return dtype_is_float(t) ? float_value(t, d, seed, stream, i) : int_value(t, d, seed, stream, i);
}

// Element `i` of stream `stream` of an integer input with range = [lo, hi]: uniform over
// lo <= v < hi (hi > lo), in integer arithmetic so host and device agree exactly. The modulo's
// bias is below (hi - lo) / 2^64: nothing a test can see.
KB_HOST_DEVICE inline double range_value(int64_t lo, int64_t hi, uint64_t seed, uint64_t stream, uint64_t i) {
  const uint64_t width = static_cast<uint64_t>(hi - lo);
  return static_cast<double>(lo + static_cast<int64_t>(element_bits(seed, stream, i) % width));
}

// One random scalar argument (a launcher parameter the spec leaves to the harness): floats of
// magnitude in [0.5, 2] (negative half the time for normal and mixed_sign), integers in [1, 16].
KB_HOST_DEVICE inline double random_scalar(DType t, Distribution d, uint64_t seed, uint64_t stream) {
  const double u = unit_random(seed, stream, 0);
  const double u2 = unit_random2(seed, stream, 0);
  if (!dtype_is_float(t)) return 1 + ::floor(16 * u);
  const double magnitude = 0.5 + 1.5 * u;
  const bool negative = (d == Distribution::normal || d == Distribution::mixed_sign) && u2 < 0.5;
  return negative ? -magnitude : magnitude;
}

}  // namespace kb::judge
