// An original that accepts only 16-byte aligned pointers: float4 loads and stores with a scalar
// tail, no alignment check (its callers always pass cudaMalloc'd arrays). The judge's alignment
// pass must skip the offsets it faults on (4 and 8 bytes) instead of blaming the candidate, and
// still check the one it accepts (16).
#include "examples/kernels.h"

__global__ void saxpy_vec4_unchecked(const float4* x, float4* y, float a, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
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
  if (n4 > 0) saxpy_vec4_unchecked<<<(n4 + 31) / 32, 32>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
  if (n4 * 4 < n) saxpy_tail<<<1, 32>>>(x, y, a, n4 * 4, n);
}
