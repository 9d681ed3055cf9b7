// Rejected (GPU memory taken): at its first call the launcher reserves almost all of the GPU's free
// memory as a "workspace pool" (to avoid cudaMalloc in later calls, as allocator-minded model code
// does) and keeps it for the life of the process. It computes saxpy right; the caller's program,
// and the judge beside it, are left without memory.
#include <cstddef>

#include "stream_kernels.h"

__global__ void saxpy_pooled(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static void* pool = nullptr;
  if (n <= 0) return;
  if (!pool) {
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    const size_t keep_free = size_t{48} << 20;
    if (free_bytes > keep_free && cudaMalloc(&pool, free_bytes - keep_free) != cudaSuccess) (void)cudaGetLastError();
  }
  int grid = (n + 255) / 256;
  if (grid > 4096) grid = 4096;
  saxpy_pooled<<<grid, 256, 0, stream>>>(x, y, a, n);
}
