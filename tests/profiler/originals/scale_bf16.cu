// The bf16 original of the stream tests: y = a * x in bfloat16 (each product in float, rounded to
// nearest) on the caller's stream, slow on purpose (32-thread blocks, one element per thread).
#include "stream_kernels.h"

__global__ void scale_bf16_kernel(const __nv_bfloat16* x, __nv_bfloat16* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16_rn(a * __bfloat162float(x[i]));
}

void launch_scale_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  scale_bf16_kernel<<<(n + 31) / 32, 32, 0, stream>>>(x, y, a, n);
}
