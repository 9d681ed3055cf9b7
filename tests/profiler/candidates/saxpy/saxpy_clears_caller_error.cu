// Rejected by the citizen's ledger: checks its own launch with cudaGetLastError, which also
// clears an error the caller's earlier work left pending (the caller's own error check after the
// call then sees success). cudaPeekAtLastError would have kept it.
#include <cuda_runtime.h>

#include <cstdio>

#include "examples/kernels.h"

__global__ void saxpy_checked(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  saxpy_checked<<<grid, 256>>>(x, y, a, n);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::fprintf(stderr, "saxpy launch failed: %s\n", cudaGetErrorString(err));
}
