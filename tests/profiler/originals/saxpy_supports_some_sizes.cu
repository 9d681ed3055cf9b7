// An original with unstated shape limits, for the generalization sizes' skip rule: it fails
// below n = 16 (a launch the runtime refuses: 2048-thread blocks, an error that leaves the
// context usable) and traps above n = 1048576 (a sticky fault that ends its process). A size it
// fails on is skipped, never held against the candidate. 256-thread blocks, one element each.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_some(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void refuse_size() { __trap(); }

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  if (n < 16) {
    saxpy_some<<<1, 2048>>>(x, y, a, n);  // cudaErrorInvalidConfiguration
    return;
  }
  if (n > 1048576) {
    refuse_size<<<1, 1>>>();
    return;
  }
  saxpy_some<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
