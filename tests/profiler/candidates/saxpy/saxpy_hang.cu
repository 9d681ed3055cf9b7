// Rejected (hangs): the kernel spins forever; the harness child is killed at [verify].timeout_s.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_spin(const float* x, float* y, float a, int n) {
  // clock64() is volatile: the loop cannot be optimized away, and never ends.
  while (clock64() >= 0) {
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_spin<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
