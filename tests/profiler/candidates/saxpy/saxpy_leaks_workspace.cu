// Rejected by the citizen's ledger: stages a * x in a workspace it allocates on every call and
// never frees (the cudaFree was forgotten). Right on every call; a program calling it every step
// runs out of device memory.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void stage_ax(const float* __restrict__ x, float* __restrict__ t, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) t[i] = a * x[i];
}

__global__ void add_staged(const float* __restrict__ t, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += t[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  float* workspace = nullptr;
  cudaMalloc(&workspace, sizeof(float) * n);
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  stage_ax<<<grid, 256>>>(x, workspace, a, n);
  add_staged<<<grid, 256>>>(workspace, y, n);
}
