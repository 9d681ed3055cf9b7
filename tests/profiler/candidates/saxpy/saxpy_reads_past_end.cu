// Rejected under --sanitize only: correct outputs, but at an odd n the last element's thread also
// reads x[n], one element past the end of the input. There the allocation's slack hides it (no
// crash; at n a multiple of 2^19 the read would leave the allocation and fault), and the value
// never changes the result, so only compute-sanitizer memcheck can tell.
#include <cuda_runtime.h>

#include "examples/kernels.h"

__global__ void saxpy_peek(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float next = (n & 1) && i == n - 1 ? x[n] : 0.0f;  // out of bounds
    // Used, so the compiler keeps the read, and never changing the result in practice.
    y[i] = a * x[i] + y[i] + (next == 3.0e38f ? 1e-30f : 0.0f);
  }
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_peek<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
