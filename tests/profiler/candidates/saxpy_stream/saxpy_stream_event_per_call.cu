// Rejected by the citizen's ledger: overlaps the tail with the body on a side stream, forked and
// joined with events, but creates the stream and both events on every call and never destroys
// them (models often forget the cleanup of a fork/join). Right, capturable and reentrant; a
// program that calls it every step runs out of streams and events.
#include <cstdint>

#include "stream_kernels.h"

__global__ void saxpy_body(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}

__global__ void saxpy_rest(const float* __restrict__ x, float* __restrict__ y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  const int n4 = aligned ? n / 4 : 0;
  cudaStream_t side;
  cudaEvent_t fork, join;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(side, fork, 0);
  if (n4 > 0) {
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_body<<<grid, 256, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
  }
  if (n4 * 4 < n) saxpy_rest<<<(n - n4 * 4 + 255) / 256, 256, 0, side>>>(x, y, a, n4 * 4, n);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(stream, join, 0);
}
