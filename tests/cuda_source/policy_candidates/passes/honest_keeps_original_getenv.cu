// passes
// Keeps the original's own getenv and <unistd.h>: the user's code is not held to the policy.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "../include/foo.h"

static bool verbose() { return std::getenv("SCALE_VERBOSE") != nullptr; }

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = 2.0f * x[i];
}

void launch_scale(const float* x, float* y, int n) {
  if (verbose()) std::printf("scale: n=%d\n", n);
  scale_kernel<<<132 * 4, FOO_BLOCK>>>(x, y, n);
}
