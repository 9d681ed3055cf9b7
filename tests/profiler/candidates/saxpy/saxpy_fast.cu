// Accepted: saxpy with 256-thread blocks and 16-byte (float4) loads and stores; a grid-stride
// loop, the tail (n % 4) and unaligned pointers handled element by element.
#include <cuda_runtime.h>

#include <cstdint>

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

__global__ void saxpy_scalar(const float* __restrict__ x, float* __restrict__ y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  const bool aligned = (reinterpret_cast<uintptr_t>(x) % 16 == 0) && (reinterpret_cast<uintptr_t>(y) % 16 == 0);
  int done = 0;
  if (aligned) {
    const int n4 = n / 4;
    if (n4 > 0) {
      int grid = (n4 + 255) / 256;
      if (grid > 65535 * 4) grid = 65535 * 4;
      saxpy_vec4<<<grid, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
    }
    done = n4 * 4;
  }
  if (done < n) {
    int grid = (n - done + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_scalar<<<grid, 256>>>(x, y, a, done, n);
  }
}
