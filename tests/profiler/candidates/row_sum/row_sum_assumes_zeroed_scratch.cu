// Rejected under --sanitize by initcheck only: a split-row sum whose blocks each reduce one chunk
// of 1024 columns and atomicAdd it into a per-row accumulator kept between calls. The accumulator
// comes from cudaMalloc and is never cleared: the code relies on fresh device memory reading as
// zero, and on its last kernel zeroing the rows again after copying them out. The normal judge
// sees right, independent results (a fresh allocation does read as zero; each host thread has its
// own accumulator, so concurrent callers on two threads do not share one); memcheck sees one
// allocation kept for the process's life, not a leak per call; initcheck sees the first call's
// atomics read memory that nothing wrote.
#include <cuda_runtime.h>

#include "examples/kernels.h"

constexpr int kThreads = 256;
constexpr int kChunkCols = 1024;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Block (row, chunk): adds the chunk's sum to acc[row].
__global__ void accumulate_chunks(const float* __restrict__ in, float* __restrict__ acc, int cols) {
  const int row = blockIdx.x;
  const int begin = blockIdx.y * kChunkCols;
  const int end = min(begin + kChunkCols, cols);
  const float* p = in + (size_t)row * cols;
  float sum = 0.0f;
  for (int c = begin + threadIdx.x; c < end; c += kThreads) sum += p[c];
  sum = warp_sum(sum);
  __shared__ float warp_totals[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kThreads / 32 ? warp_totals[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) atomicAdd(&acc[row], v);
  }
}

// Copies the sums out and leaves the accumulators at zero for the next call (no memset needed).
__global__ void finish_rows(float* __restrict__ acc, float* __restrict__ out, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  out[row] = acc[row];
  acc[row] = 0.0f;
}

namespace {

// One set per host thread, as thread-safe model code keeps a workspace: two callers on two threads
// never share it (the concurrent-callers pass passes it), and calls of one thread are ordered.
thread_local float* g_acc = nullptr;
thread_local int g_acc_rows = 0;

// The per-row accumulators, grown when a call has more rows. cudaMalloc hands out zeroed memory,
// and finish_rows zeroes every row it used, so they always start a call at zero.
float* row_accumulators(int rows) {
  if (rows > g_acc_rows) {
    if (g_acc) cudaFree(g_acc);
    const int capacity = rows > 65536 ? rows : 65536;
    cudaMalloc(&g_acc, (size_t)capacity * sizeof(float));
    g_acc_rows = capacity;
  }
  return g_acc;
}

}  // namespace

void launch_row_sum(const float* in, float* out, int rows, int cols) {
  if (rows <= 0) return;
  if (cols <= 0) {
    cudaMemsetAsync(out, 0, (size_t)rows * sizeof(float), 0);
    return;
  }
  float* acc = row_accumulators(rows);
  const int chunks = (cols + kChunkCols - 1) / kChunkCols;
  accumulate_chunks<<<dim3(rows, chunks), kThreads>>>(in, acc, cols);
  finish_rows<<<(rows + 255) / 256, 256>>>(acc, out, rows);
}
