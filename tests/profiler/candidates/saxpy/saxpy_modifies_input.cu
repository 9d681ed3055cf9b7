// Rejected (modifies its inputs): right y, but x is scaled in place as a "scratch" buffer.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_clobber(float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= a;
    y[i] = x[i] + y[i];
  }
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_clobber<<<(n + 255) / 256, 256>>>(const_cast<float*>(x), y, a, n);
}
