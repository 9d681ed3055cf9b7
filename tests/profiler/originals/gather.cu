// The original of the range test: an embedding gather, one element per thread. It traps on an id
// outside [0, vocab): if the harness ever filled ids from a distribution instead of the declared
// range, the original itself would fail (an infra_error naming the original), not read garbage.
#include "stream_kernels.h"

__global__ void gather_kernel(const float* table, const int* ids, float* out, int n_ids, int dim, int vocab) {
  const long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (e >= (long long)n_ids * dim) return;
  const int i = (int)(e / dim), j = (int)(e % dim);
  const int id = ids[i];
  if (id < 0 || id >= vocab) __trap();
  out[e] = table[(long long)id * dim + j];
}

void launch_gather(const float* table, const int* ids, float* out, int n_ids, int dim, int vocab, cudaStream_t stream) {
  const long long total = (long long)n_ids * dim;
  if (total <= 0) return;
  gather_kernel<<<(unsigned)((total + 63) / 64), 64, 0, stream>>>(table, ids, out, n_ids, dim, vocab);
}
