// transpose: out (cols x rows) = transpose of in (rows x cols), both row-major.
#include <cuda_runtime.h>

#include "examples/kernels.h"

#ifndef TRANSPOSE_BLOCK_X
#define TRANSPOSE_BLOCK_X 8
#endif
#ifndef TRANSPOSE_BLOCK_Y
#define TRANSPOSE_BLOCK_Y 8
#endif

// Slow: naive, no shared-memory tiling; threadIdx.x walks rows, so a warp's reads stride by
// `cols` floats and its writes come in short 32-byte pieces spread over several columns.
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void launch_transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(TRANSPOSE_BLOCK_X, TRANSPOSE_BLOCK_Y);
  dim3 grid((rows + TRANSPOSE_BLOCK_X - 1) / TRANSPOSE_BLOCK_X,
            (cols + TRANSPOSE_BLOCK_Y - 1) / TRANSPOSE_BLOCK_Y);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
