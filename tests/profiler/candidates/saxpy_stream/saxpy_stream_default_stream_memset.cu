// Rejected (work on the legacy default stream): saxpy that accumulates into a scratch buffer it
// clears with cudaMemsetAsync without a stream argument (the legacy default stream), then runs its
// kernel on the stream it is given. Correct when the caller's stream is a blocking stream (the
// memset is then ordered before the kernel); with a caller's non-blocking stream, the memset is
// ordered with nothing the caller does.
#include "stream_kernels.h"

__global__ void saxpy_accumulate(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ acc, float a,
                                 int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    acc[i] += a * x[i];
    y[i] = acc[i] + y[i];
  }
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  static float* acc = nullptr;
  static int capacity = 0;
  if (capacity < n) {
    if (acc) cudaFree(acc);
    cudaMalloc(&acc, sizeof(float) * static_cast<size_t>(n));
    capacity = n;
  }
  cudaMemsetAsync(acc, 0, sizeof(float) * static_cast<size_t>(n));  // stream 0: the legacy default stream
  int grid = (n + 255) / 256;
  if (grid > 65535 * 4) grid = 65535 * 4;
  saxpy_accumulate<<<grid, 256, 0, stream>>>(x, y, acc, a, n);
}
