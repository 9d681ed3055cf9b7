// Accepted (an honest control of the contract passes): stages a * x in a workspace allocated and
// freed stream-ordered on the caller's stream (cudaMallocAsync / cudaFreeAsync), as current CUDA
// guidance recommends. Capturable (the graph gets allocation and free nodes), reentrant (each
// call's workspace is its own) and it leaves nothing behind.
#include "stream_kernels.h"

__global__ void ax_to_workspace(const float* __restrict__ x, float* __restrict__ w, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) w[i] = a * x[i];
}

__global__ void add_workspace(const float* __restrict__ w, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += w[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  float* w = nullptr;
  if (cudaMallocAsync(&w, sizeof(float) * n, stream) != cudaSuccess) return;
  const int grid = (n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256;
  ax_to_workspace<<<grid, 256, 0, stream>>>(x, w, a, n);
  add_workspace<<<grid, 256, 0, stream>>>(w, y, n);
  cudaFreeAsync(w, stream);
}
