// row_sum: out[r] = sum of row r of in (rows x cols, row-major).
#include <cuda_runtime.h>

#include "examples/kernels.h"

#ifndef ROW_SUM_BLOCK
#define ROW_SUM_BLOCK 256
#endif

// Slow: every element does its own atomicAdd on global memory, so each row's `cols` additions
// serialize on one address instead of being reduced in registers and shared memory first.
__global__ void row_sum_kernel(const float* in, float* out, int rows, int cols) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long total = (long long)rows * cols;
  if (idx < total) {
    int row = (int)(idx / cols);
    atomicAdd(&out[row], in[idx]);
  }
}

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  if (rows <= 0) return;
  cudaMemsetAsync(out, 0, (size_t)rows * sizeof(float), 0);
  if (cols <= 0) return;
  long long total = (long long)rows * cols;
  unsigned int grid = (unsigned int)((total + ROW_SUM_BLOCK - 1) / ROW_SUM_BLOCK);
  row_sum_kernel<<<grid, ROW_SUM_BLOCK>>>(in, out, rows, cols);
}
