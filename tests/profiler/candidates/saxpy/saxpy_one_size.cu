// Rejected (right at one size only): the grid is hard-coded for n = 1048576, so larger inputs
// are only partly computed (correct at n = 1048576 and n = 1000003, wrong at n = 16777216).
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_fixed(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_fixed<<<1048576 / 256, 256>>>(x, y, a, n);
}
