// Rejected by the CUDA graph pass (cannot be captured): stages a * x in a temporary buffer it
// allocates with cudaMalloc on every call and frees after synchronizing, a "two-pass" layout
// models write when they split a fused loop. Leaks nothing and is right on every plain call, but
// cudaMalloc is refused while any stream captures in global mode.
#include "stream_kernels.h"

__global__ void scale_into(const float* __restrict__ x, float* __restrict__ t, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) t[i] = a * x[i];
}

__global__ void add_into(const float* __restrict__ t, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += t[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  float* tmp = nullptr;
  if (cudaMalloc(&tmp, sizeof(float) * n) != cudaSuccess) return;
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  scale_into<<<grid, 256, 0, stream>>>(x, tmp, a, n);
  add_into<<<grid, 256, 0, stream>>>(tmp, y, n);
  cudaStreamSynchronize(stream);
  cudaFree(tmp);
}
