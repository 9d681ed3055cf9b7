// Rejected (work on the legacy default stream): a two-step saxpy whose first kernel (t = a * x
// into a scratch buffer) is launched without a stream, on the legacy default stream, and whose
// second (y += t) runs on the stream it is given. It relies on the two being ordered, which holds
// only when the caller's stream is a blocking stream; a caller's non-blocking stream is ordered
// with nothing, so the second kernel may read the scratch before the first wrote it, and the
// first one reads x before the caller's earlier work on its stream produced it.
#include <cstdint>

#include "stream_kernels.h"

__global__ void scale_into_scratch(const float* __restrict__ x, float* __restrict__ t, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) t[i] = a * x[i];
}

__global__ void add_scratch(const float* __restrict__ t, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = t[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  static float* scratch = nullptr;
  static int capacity = 0;
  if (capacity < n) {
    if (scratch) cudaFree(scratch);
    cudaMalloc(&scratch, sizeof(float) * static_cast<size_t>(n));
    capacity = n;
  }
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  scale_into_scratch<<<grid, 256>>>(x, scratch, a, n);  // no stream: the legacy default stream
  add_scratch<<<grid, 256, 0, stream>>>(scratch, y, n);
}
