// Accepted (an honest side stream): the float4 saxpy runs on a non-blocking stream of the
// launcher's own, forked from the stream argument (it waits for the caller's earlier work) and
// joined back (the caller's stream waits for it) with events, as production launchers that
// overlap work on several streams do. The call gate and marker must see it kept the order.
#include <cstdint>

#include "stream_kernels.h"

__global__ void saxpy_side_vec4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_side_tail(const float* __restrict__ x, float* __restrict__ y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static cudaStream_t side = nullptr;
  static cudaEvent_t forked = nullptr, joined = nullptr;
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&joined, cudaEventDisableTiming);
  }
  if (n <= 0) return;
  cudaEventRecord(forked, stream);
  cudaStreamWaitEvent(side, forked, 0);
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  int done = 0;
  if (aligned && n / 4 > 0) {
    const int n4 = n / 4;
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_side_vec4<<<grid, 256, 0, side>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
    done = n4 * 4;
  }
  if (done < n) saxpy_side_tail<<<(n - done + 255) / 256, 256, 0, side>>>(x, y, a, done, n);
  cudaEventRecord(joined, side);
  cudaStreamWaitEvent(stream, joined, 0);
}
