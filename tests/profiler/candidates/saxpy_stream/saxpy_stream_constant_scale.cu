// Rejected by the CUDA graph pass: the scale factor goes to constant memory with
// cudaMemcpyToSymbolAsync on the caller's stream before the launch, as models write to "keep a in
// the constant cache" (in order with the kernels, so every plain call is right). A graph captured
// from one call copies from the launcher's stack frame when it is replayed, long after the frame
// is gone: the capture is refused (a copy from pageable memory) or the replay scales by garbage.
#include <cstdint>

#include "stream_kernels.h"

__constant__ float c_scale;

__global__ void saxpy_const_vec4(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  const float a = c_scale;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_const_tail(const float* __restrict__ x, float* __restrict__ y, int begin, int n) {
  const float a = c_scale;
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  cudaMemcpyToSymbolAsync(c_scale, &a, sizeof(float), 0, cudaMemcpyHostToDevice, stream);
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  int done = 0;
  if (aligned && n / 4 > 0) {
    const int n4 = n / 4;
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_const_vec4<<<grid, 256, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4);
    done = n4 * 4;
  }
  if (done < n) saxpy_const_tail<<<(n - done + 255) / 256, 256, 0, stream>>>(x, y, done, n);
}
