// The judge's device code: fresh inputs and output comparisons around timed samples.
#include "profiler/harness/device_checks.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "profiler/harness/input_distribution.h"

namespace kb::harness {
namespace {

constexpr int kThreads = 256;

int blocks_for(size_t count) {
  const size_t b = (count + kThreads - 1) / kThreads;
  return static_cast<int>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

__device__ double load_elem(int t, const void* p, size_t i) {
  switch (static_cast<ElemType>(t)) {
    case ElemType::float64: return static_cast<const double*>(p)[i];
    case ElemType::float32: return static_cast<const float*>(p)[i];
    case ElemType::float16: return __half2float(static_cast<const __half*>(p)[i]);
    case ElemType::bfloat16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case ElemType::int64: return static_cast<double>(static_cast<const long long*>(p)[i]);
    case ElemType::int32: return static_cast<const int*>(p)[i];
    case ElemType::uint32: return static_cast<const unsigned*>(p)[i];
    case ElemType::int8: return static_cast<const signed char*>(p)[i];
    case ElemType::uint8: return static_cast<const unsigned char*>(p)[i];
  }
  return 0;
}

__device__ void store_elem(int t, void* p, size_t i, double v) {
  switch (static_cast<ElemType>(t)) {
    case ElemType::float64: static_cast<double*>(p)[i] = v; break;
    case ElemType::float32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case ElemType::float16: static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v)); break;
    case ElemType::bfloat16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v)); break;
    case ElemType::int64: static_cast<long long*>(p)[i] = static_cast<long long>(v); break;
    case ElemType::int32: static_cast<int*>(p)[i] = static_cast<int>(v); break;
    case ElemType::uint32: static_cast<unsigned*>(p)[i] = static_cast<unsigned>(v); break;
    case ElemType::int8: static_cast<signed char*>(p)[i] = static_cast<signed char>(v); break;
    case ElemType::uint8: static_cast<unsigned char*>(p)[i] = static_cast<unsigned char>(v); break;
  }
}

__device__ int elem_bytes(int t) {
  switch (static_cast<ElemType>(t)) {
    case ElemType::float64:
    case ElemType::int64: return 8;
    case ElemType::float32:
    case ElemType::int32:
    case ElemType::uint32: return 4;
    case ElemType::float16:
    case ElemType::bfloat16: return 2;
    default: return 1;
  }
}

__device__ bool holds_pattern(int t, const void* p, size_t i, uint64_t pattern) {
  const int n = elem_bytes(t);
  const unsigned char* b = static_cast<const unsigned char*>(p) + i * n;
  for (int k = 0; k < n; ++k)
    if (b[k] != static_cast<unsigned char>(pattern >> (8 * k))) return false;
  return true;
}

__device__ bool is_float_elem(int t) { return is_float_type(static_cast<ElemType>(t)); }

__global__ void fill_random_kernel(void* dst, int t, int d, uint64_t seed, uint64_t stream, size_t count) {
  const bool is_float = is_float_elem(t);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const double v = element_value(static_cast<ElemType>(t), static_cast<Distribution>(d), seed, stream, i);
    store_elem(t, dst, i, v);
    if (is_float && load_elem(t, dst, i) == 0.0) store_elem(t, dst, i, v < 0 ? -0.01 : 0.01);
  }
}

__global__ void fill_range_kernel(void* dst, int t, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream,
                                  size_t count) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    store_elem(t, dst, i, range_value(lo, hi, seed, stream, i));
}

__global__ void mismatch_kernel(const void* ref, const void* got, int t, size_t count, double rtol, double atol,
                                uint64_t poison, unsigned long long* counters) {
  unsigned long long bad = 0;
  const bool exact = !is_float_elem(t) && rtol == 0 && atol == 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    if (holds_pattern(t, ref, i, poison)) continue;
    if (holds_pattern(t, got, i, poison)) {
      ++bad;
      continue;
    }
    const double r = load_elem(t, ref, i), v = load_elem(t, got, i);
    if (exact) {
      bad += r != v;
      continue;
    }
    if (isnan(r)) {
      bad += !isnan(v);
      continue;
    }
    if (isinf(r)) {
      bad += v != r;
      continue;
    }
    if (!isfinite(v) || fabs(v - r) > atol + rtol * fabs(r)) ++bad;
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

}  // namespace

cudaError_t launch_fill_random(void* dst, int elem_type, int distribution, uint64_t seed, uint64_t stream,
                               size_t count, cudaStream_t s) {
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
                                                                      static_cast<const unsigned char*>(b), bytes, counters);
  return cudaGetLastError();
}

}  // namespace kb::harness
