// Rejected: an off-by-one in the block-to-row mapping (row = block - 1, with one block more to
// make up for it). Every row is summed right, but block 0 sums the `cols` floats before `in` and
// stores that at out[-1], one float before the start of the output. Nothing crashes and every
// output element is right: only the judge's guard zone before `out` sees it.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void row_sum_block(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const long long r = (long long)blockIdx.x - 1;  // the bug: block 0 is row -1
  const float* row = in + r * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += row[c];
  sum = warp_sum(sum);
  __shared__ float partial[kThreads / 32];
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) out[r] = v;
  }
}

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  if (rows <= 0) return;
  row_sum_block<<<rows + 1, kThreads>>>(in, out, cols);
}
