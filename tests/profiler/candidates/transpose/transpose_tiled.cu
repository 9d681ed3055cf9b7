// Accepted: transpose through 32x32 shared-memory tiles padded to 33 columns (no bank
// conflicts), 32x8 threads per tile: coalesced reads and coalesced writes.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int c0 = blockIdx.x * kTile, r0 = blockIdx.y * kTile;
  for (int j = threadIdx.y; j < kTile; j += kRows) {
    const int r = r0 + j, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[j][threadIdx.x] = in[(size_t)r * cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kRows) {
    const int c = c0 + j, r = r0 + threadIdx.x;  // out is cols x rows
    if (r < rows && c < cols) out[(size_t)c * rows + r] = tile[threadIdx.x][j];
  }
}

void launch_transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(kTile, kRows);
  dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_tiled<<<grid, block>>>(in, out, rows, cols);
}
