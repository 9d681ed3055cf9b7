// Rejected when the project builds for sm_90a (CMake "90a", -gencode arch=compute_90a,...): the
// path guarded by __CUDA_ARCH_FEAT_SM90_ALL, which only an sm_90a build defines, computes
// a * (x + y) instead of a * x + y, a formula slip a model makes when it rewrites a path it
// cannot test. The plain sm_90 path is right, so the judge's own -arch=sm_90 build passes; the
// sm_90a build, run as its SASS on the H200, fails.
#include <cuda_runtime.h>

#include "examples/kernels.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    saxpy_hopper(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // sm_90a: fold the scale into one multiply after the add.
  y[i] = a * (__ldg(x + i) + y[i]);
#else
  y[i] = fmaf(a, __ldg(x + i), y[i]);
#endif
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_hopper<<<(n + kThreads - 1) / kThreads, kThreads>>>(x, y, a, n);
}
