// Accepted (an honest candidate that uses the workspace differently): y = a * x + 1 in one pass,
// rounded as the original's two passes round (the product to float, then the sum), never touching
// tmp, the original's scratch buffer ([[kernel.arg]] role = "workspace": lent, never compared).
#include "stream_kernels.h"

__global__ void scale_add_one(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = __fadd_rn(__fmul_rn(a, x[i]), 1.0f);
}

void launch_scale_scratch(const float* x, float* y, float* /*tmp*/, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  const int blocks = (n + 255) / 256;
  scale_add_one<<<blocks < 4096 ? blocks : 4096, 256, 0, stream>>>(x, y, a, n);
}
