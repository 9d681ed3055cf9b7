// The workspace original of the eval tests: y = a * x + 1 in two passes through a scratch buffer
// (tmp = a * x, then y = tmp + 1), on the caller's stream, slow on purpose (32-thread blocks).
// tmp is the kernel's own scratch: [[kernel.arg]] role = "workspace", lent and poisoned, never
// compared, so a candidate may skip it.
#include "stream_kernels.h"

__global__ void scale_into_scratch(const float* x, float* tmp, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = a * x[i];
}

__global__ void add_one_from_scratch(const float* tmp, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tmp[i] + 1.0f;
}

void launch_scale_scratch(const float* x, float* y, float* tmp, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  scale_into_scratch<<<(n + 31) / 32, 32, 0, stream>>>(x, tmp, a, n);
  add_one_from_scratch<<<(n + 31) / 32, 32, 0, stream>>>(tmp, y, n);
}
