// Rejected by the citizen's ledger: sets the device-wide cache configuration to prefer L1 before
// its launch ("saxpy streams, so give L1 the shared memory") and leaves it so, changing every
// other kernel of the caller's program.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_l1(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  cudaDeviceSetCacheConfig(cudaFuncCachePreferL1);
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  saxpy_l1<<<grid, 256>>>(x, y, a, n);
}
