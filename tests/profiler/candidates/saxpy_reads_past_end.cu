// Rejected under --sanitize only: correct outputs, but the last thread of the grid also reads
// x[n], one element past the end of the input. The allocation's slack usually hides it (no
// crash, the value is never used), so only compute-sanitizer memcheck can tell.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_peek(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float next = x[i + 1];  // x[n] for the last element: out of bounds
    // Used, so the compiler keeps the read, and never changing the result in practice.
    y[i] = a * x[i] + y[i] + (next == 3.0e38f ? 1e-30f : 0.0f);
  }
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_peek<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
