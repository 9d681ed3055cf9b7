// Rejected (ignores its stream argument): the fast kernel, but launched on a non-blocking stream of
// its own and returned from without waiting, so the stream the caller gave it (and the caller's
// timing) never sees the work. It must not win by hiding its time.
#include <cstdint>

#include "stream_kernels.h"

__global__ void saxpy_hidden_vec4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_hidden_tail(const float* x, float* y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t /*stream: ignored*/) {
  static cudaStream_t own = nullptr;
  if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  if (n <= 0) return;
  const int n4 = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0 ? n / 4 : 0;
  if (n4 > 0) {
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_hidden_vec4<<<grid, 256, 0, own>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
  }
  if (n4 * 4 < n) saxpy_hidden_tail<<<(n - n4 * 4 + 255) / 256, 256, 0, own>>>(x, y, a, n4 * 4, n);
}
