// Rejected (special values): the production softmax, 256 threads per row, that writes zeros where
// the original writes NaN (a row of -Inf, a row holding a NaN or an Inf). Ordinary rows match.
// Row softmax, one block per row, reductions through warp shuffles and shared memory.
#include <cfloat>

#include "prod/ops.h"

namespace {

template <int kThreads, typename Op>
__device__ float block_reduce(float value, Op op, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  constexpr int kWarps = kThreads / 32;
  if (kWarps == 1) return value;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // scratch may still be read by the previous reduction
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = scratch[0];
  for (int w = 1; w < kWarps; ++w) value = op(value, scratch[w]);
  return value;
}

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

}  // namespace

template <typename T, int kThreads>
__global__ void softmax_rows_kernel(T* out, const T* inp, int rows, int cols) {
  __shared__ float scratch[kThreads / 32];
  const int row = blockIdx.x;
  if (row >= rows) return;
  const T* x = inp + (size_t)row * cols;
  T* y = out + (size_t)row * cols;
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, (float)x[c]);
  m = block_reduce<kThreads>(m, Max{}, scratch);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf((float)x[c] - m);
  s = block_reduce<kThreads>(s, Sum{}, scratch);
  // "Safe" softmax: a row with no finite sum (masked out, or holding a NaN or an Inf) becomes
  // zeros, and so does any element that would not be finite.
  const float inv = s > 0.0f && isfinite(s) ? 1.0f / s : 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float v = expf((float)x[c] - m) * inv;
    y[c] = (T)(isfinite(v) ? v : 0.0f);
  }
}

void softmax_forward(float* out, const float* inp, int rows, int cols, cudaStream_t stream) {
  // Slow: one warp per row, so a long row is walked 32 values at a time and the block limit per
  // SM leaves half the warps idle.
  constexpr int threads = 256;
  softmax_rows_kernel<float, threads><<<rows, threads, 0, stream>>>(out, inp, rows, cols);
  cudaCheck(cudaGetLastError());
}

void softmax_forward(floatX* out, const floatX* inp, int rows, int cols, cudaStream_t stream) {
  constexpr int threads = 256;
  softmax_rows_kernel<floatX, threads><<<rows, threads, 0, stream>>>(out, inp, rows, cols);
  cudaCheck(cudaGetLastError());
}
