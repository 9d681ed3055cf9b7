// Rejected (work on a side stream): launches on its own non-blocking stream and returns without
// synchronizing, so the caller's stream does not wait for the result.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_async(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  static cudaStream_t side = nullptr;
  if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  if (n <= 0) return;
  saxpy_async<<<(n + 255) / 256, 256, 0, side>>>(x, y, a, n);
}
