// Rejected (timed_out) by the slice pass: a "persistent" saxpy that launches exactly as many blocks
// as the occupancy API says fit on the whole GPU, strides over the array, and ends with a
// hand-rolled grid barrier on a global counter (the last block to arrive resets it for the next
// call and releases the others), a pattern models copy from persistent-kernel examples. On the
// whole GPU every block is resident and it finishes; on a smaller GPU, under MPS or beside other
// work, the running blocks spin forever on blocks that cannot start.
#include "stream_kernels.h"

__device__ unsigned int g_arrived = 0;
__device__ volatile unsigned int g_generation = 0;

__global__ void saxpy_persistent(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int generation = g_generation;
    __threadfence();
    if (atomicAdd(&g_arrived, 1u) == gridDim.x - 1) {
      g_arrived = 0;
      __threadfence();
      g_generation = generation + 1;
    } else {
      while (g_generation == generation) {
      }
    }
  }
  __syncthreads();
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static int grid = 0;
  if (n <= 0) return;
  if (grid == 0) {
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, saxpy_persistent, 256, 0);
    grid = sms * per_sm;
  }
  saxpy_persistent<<<grid, 256, 0, stream>>>(x, y, a, n);
}
