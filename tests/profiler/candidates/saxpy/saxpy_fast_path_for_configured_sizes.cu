// Rejected (tuned to the configured sizes): a correct float4 path for exactly the sizes the
// config lists, and for every other n a "fast" path that handles whole 256-element chunks only
// (the tail is left as it was). The configured sizes alone would accept it; any generalization
// size that is not a multiple of 256 (the smallest, n = 1; odd and prime values) must reject it.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_exact(const float* x, float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_chunks(const float* x, float* y, float a, int chunks) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (blockIdx.x < chunks) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  if (n == 1048576 || n == 16777216 || n == 1000003) {
    saxpy_exact<<<1024, 256>>>(x, y, a, n);
    return;
  }
  const int chunks = n / 256;
  if (chunks > 0) saxpy_chunks<<<chunks, 256>>>(x, y, a, chunks);
}
