// saxpy: y = a * x + y.
#include <cuda_runtime.h>

#include "examples/kernels.h"

#ifndef SAXPY_BLOCK
#define SAXPY_BLOCK 32
#endif

// Slow: 32-thread blocks, so the SM's resident-block limit caps occupancy at half and the
// scheduler handles 32x more blocks than it needs to.
__global__ void saxpy_kernel(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  int grid = (n + SAXPY_BLOCK - 1) / SAXPY_BLOCK;
  saxpy_kernel<<<grid, SAXPY_BLOCK>>>(x, y, a, n);
}
