// Rejected (returns a cached answer): computes the first result for each n, keeps a copy, and
// afterwards copies the cached result into y without looking at the inputs.
#include <cuda_runtime.h>

#include <map>

#include "examples/kernels.h"

__global__ void saxpy_once(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  static std::map<int, float*> cache;
  if (n <= 0) return;
  auto it = cache.find(n);
  if (it != cache.end()) {
    cudaMemcpyAsync(y, it->second, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
    return;
  }
  saxpy_once<<<(n + 255) / 256, 256>>>(x, y, a, n);
  float* saved = nullptr;
  cudaMalloc(&saved, (size_t)n * sizeof(float));
  cudaMemcpyAsync(saved, y, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
  cache[n] = saved;
}
