// Rejected (ignores the per-thread default stream it is given): the float4 saxpy on the stream
// argument, except that a default stream (the legacy one, or the per-thread one) is swapped for a
// non-blocking stream of its own, "to stay off the default stream". A caller that hands it
// cudaStreamPerThread then never waits for its work. Only the per-thread pass gives it that stream.
#include <cstdint>

#include "stream_kernels.h"

__global__ void saxpy_avoid_vec4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_avoid_tail(const float* __restrict__ x, float* __restrict__ y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  static cudaStream_t own = nullptr;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    stream = own;
  }
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  int done = 0;
  if (aligned && n / 4 > 0) {
    const int n4 = n / 4;
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_avoid_vec4<<<grid, 256, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
    done = n4 * 4;
  }
  if (done < n) saxpy_avoid_tail<<<(n - done + 255) / 256, 256, 0, stream>>>(x, y, a, done, n);
}
