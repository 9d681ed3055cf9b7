// Rejected (a cache keyed on part of the input): hashes the first 64 elements of `in` on the GPU
// and, when they match the previous call's at this shape, replays the previous call's output
// instead of reading `in`. Fresh inputs every trial and every timed sample never hit the cache;
// a call on the same buffers where only a few later elements changed does, and replays the old
// values at exactly those elements. All of it stays on the caller's stream.
#include <cuda_runtime.h>

#include <map>
#include <utility>

#include "examples/kernels.h"

struct Cache {
  unsigned long long* hashes = nullptr;  // [0] this call's prefix hash, [1] the saved one
  float* saved = nullptr;
};

__global__ void hash_prefix(const float* in, size_t total, unsigned long long* hashes) {
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < 64 && i < total; ++i) {
    h ^= __float_as_uint(in[i]);
    h *= 1099511628211ull;
  }
  hashes[0] = h | 1;  // never 0, the empty cache's hash
}

__global__ void transpose_or_replay(const float* in, float* out, int rows, int cols, const unsigned long long* hashes,
                                    float* saved) {
  const bool hit = hashes[0] == hashes[1];
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  const size_t o = (size_t)c * rows + r;
  if (hit) {
    out[o] = saved[o];
    return;
  }
  const float v = in[(size_t)r * cols + c];
  out[o] = v;
  saved[o] = v;
}

__global__ void remember(unsigned long long* hashes) { hashes[1] = hashes[0]; }

void launch_transpose(const float* in, float* out, int rows, int cols) {
  static std::map<std::pair<int, int>, Cache> caches;
  if (rows <= 0 || cols <= 0) return;
  Cache& cache = caches[{rows, cols}];
  if (!cache.saved) {
    cudaMalloc(&cache.hashes, 2 * sizeof(unsigned long long));
    cudaMalloc(&cache.saved, (size_t)rows * cols * sizeof(float));
    cudaMemsetAsync(cache.hashes, 0, 2 * sizeof(unsigned long long), 0);
  }
  hash_prefix<<<1, 1>>>(in, (size_t)rows * cols, cache.hashes);
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose_or_replay<<<grid, block>>>(in, out, rows, cols, cache.hashes, cache.saved);
  remember<<<1, 1>>>(cache.hashes);
}
