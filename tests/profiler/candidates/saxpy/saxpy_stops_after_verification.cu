// Rejected (skips work once checked): computes correctly for its first 40 calls, which cover the
// verification trials, and afterwards launches nothing, leaving y as it is. Against a harness that
// reuses the timed inputs and checks only the final buffer, that looked ~7x faster.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_wide(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  static int calls = 0;
  if (n <= 0 || ++calls > 40) return;
  saxpy_wide<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
