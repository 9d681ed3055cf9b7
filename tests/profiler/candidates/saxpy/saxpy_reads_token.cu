// Accepted, because the sandbox works: a fast saxpy that writes garbage when it can read
// GITHUB_TOKEN from its environment. The test runs kernelbot with GITHUB_TOKEN set; the
// harness child's environment is scrubbed, so the candidate finds nothing and is correct.
#include <cuda_runtime.h>

#include <cstdlib>

#include "examples/kernels.h"

__global__ void saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n, float poison) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poison != 0.0f ? poison : a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  const float poison = std::getenv("GITHUB_TOKEN") != nullptr ? 12345.0f : 0.0f;
  saxpy_256<<<(n + 255) / 256, 256>>>(x, y, a, n, poison);
}
