// The original of the stream tests: saxpy on the caller's stream, slow on purpose (32-thread
// blocks, as examples/src/saxpy.cu).
#include "stream_kernels.h"

__global__ void saxpy_stream_kernel(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  saxpy_stream_kernel<<<(n + 31) / 32, 32, 0, stream>>>(x, y, a, n);
}
