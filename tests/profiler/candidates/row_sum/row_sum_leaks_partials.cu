// Rejected under --sanitize by memcheck's leak check: a two-pass row sum (each row split into
// chunks of 1024 columns, one block per chunk, the chunks' sums added by a second kernel) that
// allocates the partial sums with cudaMalloc on every call and never frees them. Its results are
// right and deterministic, so only the leak check sees it: every call leaves rows x chunks floats
// allocated, and a second call at each size set leaves as many again.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;
constexpr int kChunkCols = 1024;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Block (row, chunk): the sum of one chunk of one row, written to partial[row * chunks + chunk].
__global__ void chunk_sums(const float* __restrict__ in, float* __restrict__ partial, int cols, int chunks) {
  const int row = blockIdx.x;
  const int chunk = blockIdx.y;
  const float* p = in + (size_t)row * cols;
  const int begin = chunk * kChunkCols;
  const int end = min(begin + kChunkCols, cols);
  float sum = 0.0f;
  for (int c = begin + threadIdx.x; c < end; c += kThreads) sum += p[c];
  sum = warp_sum(sum);
  __shared__ float warp_totals[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kThreads / 32 ? warp_totals[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) partial[(size_t)row * chunks + chunk] = v;
  }
}

__global__ void add_chunks(const float* __restrict__ partial, float* __restrict__ out, int rows, int chunks) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = 0; k < chunks; ++k) sum += partial[(size_t)row * chunks + k];
  out[row] = sum;
}

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  if (rows <= 0) return;
  if (cols <= 0) {
    cudaMemsetAsync(out, 0, (size_t)rows * sizeof(float), 0);
    return;
  }
  const int chunks = (cols + kChunkCols - 1) / kChunkCols;
  // Scratch for the per-chunk sums of this call.
  float* partial = nullptr;
  cudaMalloc(&partial, (size_t)rows * chunks * sizeof(float));
  chunk_sums<<<dim3(rows, chunks), kThreads>>>(in, partial, cols, chunks);
  add_chunks<<<(rows + 255) / 256, 256>>>(partial, out, rows, chunks);
}
