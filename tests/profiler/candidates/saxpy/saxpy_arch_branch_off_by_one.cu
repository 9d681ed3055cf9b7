// Rejected when the project builds for sm_80 as well as sm_90: written as a model writes a kernel
// it was told must run on Ampere and Hopper. The Hopper path (__CUDA_ARCH__ >= 900) is right; the
// path for older GPUs, "simpler for Ampere", bounds its threads with `i + 1 < n`, so the last
// element is never written there (y[n-1] keeps its input). A judge that compiles for sm_90 only
// never takes that branch and accepts the file; the compute_80 build, run on the H200 through
// the driver's JIT, takes it and fails.
#include <cuda_runtime.h>

#include "examples/kernels.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 900
  // Hopper: the read-only path for x, one fused multiply-add per element.
  if (i < n) y[i] = fmaf(a, __ldg(x + i), y[i]);
#else
  // Ampere and older: the same, guarded for the last full element.
  if (i + 1 < n) y[i] = fmaf(a, __ldg(x + i), y[i]);
#endif
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  const int grid = (n + kThreads - 1) / kThreads;
  saxpy_256<<<grid, kThreads>>>(x, y, a, n);
}
