// The original of the policy tests: the user's own code, which may do what a candidate may not
// (read an environment variable in its setup, include a POSIX header).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "../include/foo.h"

static bool verbose() { return std::getenv("SCALE_VERBOSE") != nullptr; }

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

void launch_scale(const float* x, float* y, int n) {
  if (verbose()) std::printf("scale: n=%d\n", n);
  scale_kernel<<<(n + FOO_BLOCK - 1) / FOO_BLOCK, FOO_BLOCK>>>(x, y, n);
}
