// Rejected (wrong result): subtracts y instead of adding it.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_wrong(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] - y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_wrong<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
