// Rejected (special values): reads NaN and infinite inputs as 0, "sanitizing" them, where the
// original y = a * x + y propagates them. Every ordinary input gives the original's result.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__device__ float finite_or_zero(float v) { return isfinite(v) ? v : 0.0f; }

__global__ void saxpy_sanitized(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * finite_or_zero(x[i]) + finite_or_zero(y[i]);
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_sanitized<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
