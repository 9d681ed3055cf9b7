// The judge's device code: fresh inputs and output comparisons around timed samples.
#include "profiler/judge/outputs/device_checks.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "profiler/judge/inputs/input_distribution.h"
#include "profiler/judge/outputs/non_finite_rule.h"

namespace kb::judge {
namespace {

constexpr int kThreads = 256;

int blocks_for(size_t count) {
  const size_t b = (count + kThreads - 1) / kThreads;
  return static_cast<int>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

__device__ double load_elem(int t, const void* p, size_t i) {
  switch (static_cast<DType>(t)) {
    case DType::float64: return static_cast<const double*>(p)[i];
    case DType::float32: return static_cast<const float*>(p)[i];
    case DType::float16: return __half2float(static_cast<const __half*>(p)[i]);
    case DType::bfloat16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::int64: return static_cast<double>(static_cast<const long long*>(p)[i]);
    case DType::int32: return static_cast<const int*>(p)[i];
    case DType::uint32: return static_cast<const unsigned*>(p)[i];
    case DType::int8: return static_cast<const signed char*>(p)[i];
    case DType::uint8: return static_cast<const unsigned char*>(p)[i];
  }
  return 0;
}

__device__ void store_elem(int t, void* p, size_t i, double v) {
  switch (static_cast<DType>(t)) {
    case DType::float64: static_cast<double*>(p)[i] = v; break;
    case DType::float32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DType::float16: static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v)); break;
    case DType::bfloat16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v)); break;
    case DType::int64: static_cast<long long*>(p)[i] = static_cast<long long>(v); break;
    case DType::int32: static_cast<int*>(p)[i] = static_cast<int>(v); break;
    case DType::uint32: static_cast<unsigned*>(p)[i] = static_cast<unsigned>(v); break;
    case DType::int8: static_cast<signed char*>(p)[i] = static_cast<signed char>(v); break;
    case DType::uint8: static_cast<unsigned char*>(p)[i] = static_cast<unsigned char>(v); break;
  }
}

__device__ bool holds_pattern(int t, const void* p, size_t i, uint64_t pattern) {
  const int n = static_cast<int>(dtype_size(static_cast<DType>(t)));
  const unsigned char* b = static_cast<const unsigned char*>(p) + i * n;
  for (int k = 0; k < n; ++k)
    if (b[k] != static_cast<unsigned char>(pattern >> (8 * k))) return false;
  return true;
}

__global__ void fill_random_kernel(void* dst, int t, int d, uint64_t seed, uint64_t stream, size_t count) {
  const bool is_float = dtype_is_float(static_cast<DType>(t));
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const double v = element_value(static_cast<DType>(t), static_cast<Distribution>(d), seed, stream, i);
    store_elem(t, dst, i, v);
    if (is_float && load_elem(t, dst, i) == 0.0) store_elem(t, dst, i, v < 0 ? -0.01 : 0.01);
  }
}

__global__ void fill_range_kernel(void* dst, int t, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream,
                                  size_t count) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    store_elem(t, dst, i, range_value(lo, hi, seed, stream, i));
}

// atol + rtol * magnitude, rounded as the host's compare_output rounds it (a multiply, then an
// add): nvcc would fuse the two into one FMA, and an element at the very edge of the tolerance
// could then pass on one side and fail on the other.
__device__ double tolerance_at(double atol, double rtol, double magnitude) {
  return __dadd_rn(atol, __dmul_rn(rtol, magnitude));
}

__device__ bool same_bytes(int t, const void* a, const void* b, size_t i) {
  const int n = static_cast<int>(dtype_size(static_cast<DType>(t)));
  const unsigned char* x = static_cast<const unsigned char*>(a) + i * n;
  const unsigned char* y = static_cast<const unsigned char*>(b) + i * n;
  for (int k = 0; k < n; ++k)
    if (x[k] != y[k]) return false;
  return true;
}

__global__ void mismatch_kernel(const void* ref, const void* got, int t, size_t count, double rtol, double atol,
                                uint64_t poison, unsigned long long* counters) {
  unsigned long long bad = 0;
  const bool exact = !dtype_is_float(static_cast<DType>(t)) && rtol == 0 && atol == 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    if (holds_pattern(t, ref, i, poison)) continue;
    if (holds_pattern(t, got, i, poison)) {
      ++bad;
      continue;
    }
    if (exact) {
      // Bytes, not doubles: 64-bit integers above 2^53 that differ in their low bits are equal
      // as doubles.
      bad += !same_bytes(t, ref, got, i);
      continue;
    }
    const double r = load_elem(t, ref, i), v = load_elem(t, got, i);
    if (const int m = non_finite_mismatch(r, v); m >= 0) {
      bad += m;
      continue;
    }
    if (!isfinite(v) || fabs(v - r) > tolerance_at(atol, rtol, fabs(r))) ++bad;
  }
  if (bad) atomicAdd(counters, bad);
}

__global__ void difference_kernel(const unsigned char* a, const unsigned char* b, size_t bytes,
                                  unsigned long long* counters) {
  unsigned long long bad = 0;
  const size_t words = bytes / 4;
  const auto* wa = reinterpret_cast<const unsigned*>(a);
  const auto* wb = reinterpret_cast<const unsigned*>(b);
  const size_t tid = blockIdx.x * size_t{blockDim.x} + threadIdx.x, stride = size_t{gridDim.x} * blockDim.x;
  for (size_t i = tid; i < words; i += stride) bad += wa[i] != wb[i];
  for (size_t i = words * 4 + tid; i < bytes; i += stride) bad += a[i] != b[i];
  if (bad) atomicAdd(counters, bad);
}

// Non-negative doubles order as their bit patterns: atomicMax on the bits is a max on the values.
__device__ unsigned long long order_bits(double v) { return static_cast<unsigned long long>(__double_as_longlong(v)); }

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

// compare_output's rules (output_comparator.h) element by element; the sums and maxima it
// reports are reduced per warp, then added to `stats` with one atomic per warp.
__global__ void output_stats_kernel(const void* ref, const void* got, const void* scale, int t, size_t count,
                                    double rtol, double atol, uint64_t poison, DeviceOutputStats* stats) {
  unsigned long long elements = 0, bad = 0;
  double max_abs = 0, max_rel = 0, max_ref = 0;
  const bool exact = !dtype_is_float(static_cast<DType>(t)) && rtol == 0 && atol == 0;
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  // Every thread of a warp runs the same number of iterations, so the shuffles below see all 32.
  const size_t first = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  for (size_t i = first; i < count; i += stride) {
    if (holds_pattern(t, ref, i, poison)) continue;
    ++elements;
    const double r = load_elem(t, ref, i), v = load_elem(t, got, i);
    if (holds_pattern(t, got, i, poison)) {
      ++bad;
      continue;
    }
    if (exact) {
      if (!same_bytes(t, ref, got, i)) {
        ++bad;
        const double err = fabs(v - r);
        max_abs = fmax(max_abs, err);
        if (r != 0) max_rel = fmax(max_rel, err / fabs(r));
      }
      continue;
    }
    if (const int m = non_finite_mismatch(r, v); m >= 0) {
      bad += m;
      continue;
    }
    max_ref = fmax(max_ref, fabs(r));
    if (!isfinite(v)) {
      ++bad;
      continue;
    }
    const double err = fabs(v - r);
    double magnitude = fabs(r);
    if (scale) {
      const double sc = holds_pattern(t, scale, i, poison) ? HUGE_VAL : fabs(load_elem(t, scale, i));
      if (isfinite(sc)) magnitude = fmax(magnitude, sc);
    }
    max_abs = fmax(max_abs, err);
    if (r != 0) max_rel = fmax(max_rel, err / fabs(r));
    if (err > tolerance_at(atol, rtol, magnitude)) ++bad;
  }
  elements = warp_sum(elements);
  bad = warp_sum(bad);
  max_abs = warp_max(max_abs);
  max_rel = warp_max(max_rel);
  max_ref = warp_max(max_ref);
  if ((threadIdx.x & 31) != 0) return;
  if (elements) atomicAdd(&stats->elements, elements);
  if (bad) atomicAdd(&stats->mismatches, bad);
  atomicMax(&stats->max_abs_bits, order_bits(max_abs));
  atomicMax(&stats->max_rel_bits, order_bits(max_rel));
  atomicMax(&stats->max_ref_bits, order_bits(max_ref));
}

// check_reference's counts element by element, summed per warp, one atomic per warp and counter.
__global__ void reference_counts_kernel(const void* data, int t, size_t count, bool count_poison, uint64_t poison,
                                        unsigned long long* counts) {
  unsigned long long poisoned = 0, finite = 0, differ = 0;
  const double first = load_elem(t, data, 0);
  const bool first_is_nan = isnan(first);
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  // Every thread of a warp runs the same number of iterations, so the shuffles below see all 32.
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += stride) {
    if (count_poison && holds_pattern(t, data, i, poison)) {
      ++poisoned;
      continue;
    }
    const double v = load_elem(t, data, i);
    finite += isfinite(v) ? 1 : 0;
    differ += v == first || (first_is_nan && isnan(v)) ? 0 : 1;
  }
  poisoned = warp_sum(poisoned);
  finite = warp_sum(finite);
  differ = warp_sum(differ);
  if ((threadIdx.x & 31) != 0) return;
  if (poisoned) atomicAdd(&counts[0], poisoned);
  if (finite) atomicAdd(&counts[1], finite);
  if (differ) atomicAdd(&counts[2], differ);
}

template <typename Bits>
__global__ void clear_sign_kernel(Bits* data, size_t count) {
  constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << (8 * sizeof(Bits) - 1)));
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    data[i] = static_cast<Bits>(data[i] & kMagnitude);
}

}  // namespace

cudaError_t launch_fill_random(void* dst, int elem_type, int distribution, uint64_t seed, uint64_t stream, size_t count,
                               cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  fill_random_kernel<<<blocks_for(count), kThreads, 0, s>>>(dst, elem_type, distribution, seed, stream, count);
  return cudaGetLastError();
}

cudaError_t launch_fill_range(void* dst, int elem_type, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream,
                              size_t count, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  fill_range_kernel<<<blocks_for(count), kThreads, 0, s>>>(dst, elem_type, lo, hi, seed, stream, count);
  return cudaGetLastError();
}

cudaError_t launch_count_mismatches(const void* ref, const void* got, int elem_type, size_t count, double rtol,
                                    double atol, uint64_t poison_bits, unsigned long long* counters, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  mismatch_kernel<<<blocks_for(count), kThreads, 0, s>>>(ref, got, elem_type, count, rtol, atol, poison_bits, counters);
  return cudaGetLastError();
}

cudaError_t launch_count_differences(const void* a, const void* b, size_t bytes, unsigned long long* counters,
                                     cudaStream_t s) {
  if (bytes == 0) return cudaSuccess;
  difference_kernel<<<blocks_for(bytes / 4 + 1), kThreads, 0, s>>>(static_cast<const unsigned char*>(a),
                                                                   static_cast<const unsigned char*>(b), bytes,
                                                                   counters);
  return cudaGetLastError();
}

cudaError_t launch_output_stats(const void* ref, const void* got, const void* scale, int elem_type, size_t count,
                                double rtol, double atol, uint64_t poison_bits, DeviceOutputStats* stats,
                                cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  // Whole warps only: blocks_for gives whole blocks of kThreads (a multiple of 32).
  output_stats_kernel<<<blocks_for(count), kThreads, 0, s>>>(ref, got, scale, elem_type, count, rtol, atol, poison_bits,
                                                             stats);
  return cudaGetLastError();
}

cudaError_t launch_reference_counts(const void* data, int elem_type, size_t count, bool count_poison,
                                    uint64_t poison_bits, unsigned long long* counts, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  // Whole warps only: blocks_for gives whole blocks of kThreads (a multiple of 32).
  reference_counts_kernel<<<blocks_for(count), kThreads, 0, s>>>(data, elem_type, count, count_poison, poison_bits,
                                                                 counts);
  return cudaGetLastError();
}

cudaError_t launch_abs_in_place(void* data, int elem_type, size_t count, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  switch (static_cast<DType>(elem_type)) {
    case DType::float64:
      clear_sign_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<unsigned long long*>(data), count);
      break;
    case DType::float32:
      clear_sign_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<unsigned*>(data), count);
      break;
    case DType::float16:
    case DType::bfloat16:
      clear_sign_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<unsigned short*>(data), count);
      break;
    default: return cudaSuccess;  // integers: left alone, as abs_in_place does
  }
  return cudaGetLastError();
}

}  // namespace kb::judge
