// Rejected by the alignment pass: float4 loads and stores with a scalar tail, but no check that x
// and y are 16-byte aligned. Right on the judge's own buffers (every one starts on a 256-byte
// boundary); a caller's `x + 1` is 4 bytes past one, and there a float4 access is a misaligned
// address, which the original (scalar) accepts.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_vec4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_tail(const float* x, float* y, float a, int from, int n) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  const int n4 = n / 4;
  if (n4 > 0) {
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_vec4<<<grid, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
  }
  if (n4 * 4 < n) saxpy_tail<<<1, 256>>>(x, y, a, n4 * 4, n);
}
