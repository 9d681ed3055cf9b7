// The judge's device fill of special values (special_values.h) into inputs it already generated.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "profiler/judge/inputs/special_values.h"
#include "profiler/judge/inputs/special_values_fill.h"

namespace kb::judge {
namespace {

constexpr int kThreads = 256;

// Stored as fill_random stores a double: double -> float -> half/bfloat16, rounding to nearest.
__device__ void store_float(DType t, void* p, size_t i, double v) {
  switch (t) {
    case DType::float64: static_cast<double*>(p)[i] = v; break;
    case DType::float16: static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v)); break;
    case DType::bfloat16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v)); break;
    default: static_cast<float*>(p)[i] = static_cast<float>(v); break;
  }
}

__global__ void mix_special_kernel(void* data, int t, size_t count, uint64_t seed, uint64_t stream) {
  const auto type = static_cast<DType>(t);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const SpecialKind k = special_kind(seed, stream, i, count);
    if (k != SpecialKind::none) store_float(type, data, i, special_value(type, k, seed, stream, i));
  }
}

}  // namespace

cudaError_t launch_mix_special_values(void* data, int elem_type, size_t count, uint64_t seed, uint64_t stream,
                                      cudaStream_t s) {
  if (count == 0 || !dtype_is_float(static_cast<DType>(elem_type))) return cudaSuccess;
  const size_t blocks = (count + kThreads - 1) / kThreads;
  mix_special_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), kThreads, 0, s>>>(data, elem_type, count,
                                                                                               seed, stream);
  return cudaGetLastError();
}

}  // namespace kb::judge
