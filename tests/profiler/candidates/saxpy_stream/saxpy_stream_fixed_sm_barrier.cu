// Rejected (timed_out) by the slice pass: one block of 1024 threads per SM of "the" GPU, the SM
// count written in as a constant (an H100/H200 has 132), and a two-phase kernel whose phases are
// separated by a grid barrier made of a global atomic counter: models write this when they want
// all loads done before any store. Right on the GPU it was written for; on fewer SMs the blocks
// that start wait for ones that never can.
#include "stream_kernels.h"

namespace {
constexpr int kSms = 132;
}

__device__ unsigned int g_phase_arrivals = 0;

__global__ void saxpy_two_phase(const float* __restrict__ x, float* __restrict__ y, float a, int n,
                                unsigned int target) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i] + y[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(&g_phase_arrivals, 1u);
    while (atomicAdd(&g_phase_arrivals, 0u) < target) {
    }
  }
  __syncthreads();
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static unsigned int calls = 0;
  if (n <= 0) return;
  ++calls;
  // The counter only grows: each call waits until it reaches its own multiple of the grid.
  saxpy_two_phase<<<kSms, 1024, 0, stream>>>(x, y, a, n, calls * kSms);
}
