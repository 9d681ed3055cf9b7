// Accepted when the project builds for sm_80 and sm_90 (and compiled for sm_100): an honest
// candidate with a path per architecture, both right. On Hopper (__CUDA_ARCH__ >= 900) each thread
// of a grid-stride loop handles four elements a grid apart before the remainder; older GPUs take
// the plain grid-stride loop. 256-thread blocks either way, the grid capped; no alignment assumed.
#include <cuda_runtime.h>

#include "examples/kernels.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65535 * 4;

__global__ void __launch_bounds__(kThreads)
    saxpy_strided(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 900
  // Four independent loads in flight per thread before any store.
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float x0 = __ldg(x + i), x1 = __ldg(x + i + stride), x2 = __ldg(x + i + 2 * stride),
                x3 = __ldg(x + i + 3 * stride);
    const float y0 = y[i], y1 = y[i + stride], y2 = y[i + 2 * stride], y3 = y[i + 3 * stride];
    y[i] = fmaf(a, x0, y0);
    y[i + stride] = fmaf(a, x1, y1);
    y[i + 2 * stride] = fmaf(a, x2, y2);
    y[i + 3 * stride] = fmaf(a, x3, y3);
  }
  for (; i < n; i += stride) y[i] = fmaf(a, __ldg(x + i), y[i]);
#else
  for (; i < n; i += stride) y[i] = fmaf(a, x[i], y[i]);
#endif
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  int grid = (n + kThreads - 1) / kThreads;
  if (grid > kMaxBlocks) grid = kMaxBlocks;
  saxpy_strided<<<grid, kThreads>>>(x, y, a, n);
}
