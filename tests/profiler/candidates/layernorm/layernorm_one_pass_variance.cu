// Rejected (numerically unsafe): the warp-per-row layernorm of layernorm_warp.cu, but with the
// variance from one pass, E[x^2] - E[x]^2. Right for rows centred near zero; for a row whose mean
// is large against its spread (offset inputs) the two terms cancel and the variance is noise.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kWarpsPerBlock = 4;

__device__ float warp_all_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernorm_one_pass(const float* __restrict__ x, const float* __restrict__ gamma,
                                   const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                   float eps) {
  const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float sum = 0.0f, sq = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    sum += xr[c];
    sq += xr[c] * xr[c];
  }
  const float mean = warp_all_sum(sum) / cols;
  const float var = fmaxf(warp_all_sum(sq) / cols - mean * mean, 0.0f);
  const float inv_std = 1.0f / sqrtf(var + eps);
  for (int c = lane; c < cols; c += 32) yr[c] = (xr[c] - mean) * inv_std * gamma[c] + beta[c];
}

void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols, float eps) {
  if (rows <= 0 || cols <= 0) return;
  const int grid = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  layernorm_one_pass<<<grid, 32 * kWarpsPerBlock>>>(x, gamma, beta, y, rows, cols, eps);
}
