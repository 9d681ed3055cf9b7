// Rejected: the result is written into the workspace (tmp) and the output y is left as it was.
// A workspace is never compared, so it cannot stand for an output: y still holds the judge's
// poison, and the verdict says the output was not written.
#include "stream_kernels.h"

__global__ void scale_add_one_into_tmp(const float* __restrict__ x, float* __restrict__ tmp, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    tmp[i] = __fadd_rn(__fmul_rn(a, x[i]), 1.0f);
}

void launch_scale_scratch(const float* x, float* /*y*/, float* tmp, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  const int blocks = (n + 255) / 256;
  scale_add_one_into_tmp<<<blocks < 4096 ? blocks : 4096, 256, 0, stream>>>(x, tmp, a, n);
}
