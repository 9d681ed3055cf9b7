// Rejected (crashes): writes far past the end of y, an illegal address.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_oob(const float* x, float* y, float a, int n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i + (1ll << 36)] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_oob<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
