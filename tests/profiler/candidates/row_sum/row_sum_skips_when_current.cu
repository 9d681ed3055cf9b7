// Rejected (skips work when the output already looks right): sums the first 8 rows itself and,
// when `out` already holds those sums (within 1e-5 of the row's sum of |in|), launches no row
// sum at all. Poisoned outputs (every trial, every timed sample) never look right; outputs that
// hold the previous call's correct result, while a few later elements of `in` changed, do.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;
constexpr int kProbeRows = 8;

__device__ float block_sum(float v) {
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
  __syncthreads();
  return total;  // valid in thread 0
}

// One block: current[0] = 1 when every probed row's sum is already in `out`.
__global__ void probe(const float* in, const float* out, int rows, int cols, int* current) {
  bool same = true;
  for (int r = 0; r < kProbeRows && r < rows; ++r) {
    float sum = 0, abs_sum = 0;
    for (int c = threadIdx.x; c < cols; c += kThreads) {
      sum += in[(size_t)r * cols + c];
      abs_sum += fabsf(in[(size_t)r * cols + c]);
    }
    sum = block_sum(sum);
    abs_sum = block_sum(abs_sum);
    if (threadIdx.x == 0 && !(fabsf(out[r] - sum) <= 1e-5f * abs_sum + 1e-5f)) same = false;
  }
  if (threadIdx.x == 0) *current = same ? 1 : 0;
}

__global__ void row_sum_unless_current(const float* in, float* out, int cols, const int* current) {
  if (*current) return;
  const float* row = in + (size_t)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += row[c];
  sum = block_sum(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  static int* current = nullptr;
  if (rows <= 0) return;
  if (cols <= 0) {
    cudaMemsetAsync(out, 0, (size_t)rows * sizeof(float), 0);
    return;
  }
  if (!current) cudaMalloc(&current, sizeof(int));
  probe<<<1, kThreads>>>(in, out, rows, cols, current);
  row_sum_unless_current<<<rows, kThreads>>>(in, out, cols, current);
}
