// Rejected: `r <= rows` where `r < rows` was meant. The rows are summed right, but one block too
// many runs: it sums `cols` floats past the end of `in` and stores the sum at out[rows], one float
// past the end of the output. Nothing crashes (the allocation's slack takes it) and every output
// element is right, so only the judge's guard zone after `out` sees it.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void row_sum_block(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x;
  if (r > rows) return;  // the bug: r == rows passes
  const float* row = in + (size_t)r * cols;
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
  row_sum_block<<<rows + 1, kThreads>>>(in, out, rows, cols);
}
