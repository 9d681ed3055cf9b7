// A compile error for sm_100 when the project builds for it: the Blackwell path (__CUDA_ARCH__ >=
// 1000) calls a helper the file never declares, a slip in a branch no one compiled. The H200
// cannot run sm_100 code, but it must at least compile: the candidate's compile_error, naming the
// architecture. The paths the judge runs (sm_90, and sm_80 through the JIT) are right.
#include <cuda_runtime.h>

#include "examples/kernels.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 1000
  y[i] = blackwell_fma(a, x[i], y[i]);
#else
  y[i] = fmaf(a, x[i], y[i]);
#endif
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_256<<<(n + kThreads - 1) / kThreads, kThreads>>>(x, y, a, n);
}
