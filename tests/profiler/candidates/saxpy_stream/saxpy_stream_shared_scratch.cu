// Rejected by the concurrent-callers pass (wrong_result): a * x goes to a scratch buffer kept in
// a static pointer and grown when a call needs more, then is added to y; models write this to
// "avoid allocating on every call". Two callers at once (two streams, or two threads) share the
// scratch: one call's second kernel reads the other call's a * x.
#include "stream_kernels.h"

__global__ void scale_to_scratch(const float* __restrict__ x, float* __restrict__ t, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) t[i] = a * x[i];
}

__global__ void add_scratch(const float* __restrict__ t, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += t[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static float* scratch = nullptr;
  static int capacity = 0;
  if (n <= 0) return;
  if (n > capacity) {
    cudaStreamSynchronize(stream);
    if (scratch) cudaFree(scratch);
    if (cudaMalloc(&scratch, sizeof(float) * n) != cudaSuccess) return;
    capacity = n;
  }
  const int grid = (n + 255) / 256 > 4096 ? 4096 : (n + 255) / 256;
  scale_to_scratch<<<grid, 256, 0, stream>>>(x, scratch, a, n);
  add_scratch<<<grid, 256, 0, stream>>>(scratch, y, n);
}
