// Rejected (lower precision inside a loose tolerance): the warp-per-row reduction of
// row_sum_warp.cu, but every partial sum is kept in fp16. On unit-scale inputs no row sum
// exceeds 65504 and the error hides inside rtol 1e-3; on large, offset or extreme inputs it
// overflows or loses every digit.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;

__device__ __half warp_sum(__half v) {
  for (int offset = 16; offset > 0; offset /= 2) v = __hadd(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

__global__ void row_sum_half(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const float* row = in + (size_t)blockIdx.x * cols;
  __half sum = __float2half(0.0f);
  for (int c = threadIdx.x; c < cols; c += kThreads) sum = __hadd(sum, __float2half(row[c]));
  sum = warp_sum(sum);
  __shared__ __half partial[kThreads / 32];
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    __half v = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : __float2half(0.0f);
    v = warp_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = __half2float(v);
  }
}

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  if (rows <= 0) return;
  if (cols <= 0) {
    cudaMemsetAsync(out, 0, (size_t)rows * sizeof(float), 0);
    return;
  }
  row_sum_half<<<rows, kThreads>>>(in, out, cols);
}
