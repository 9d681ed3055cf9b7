// Honest: the gather with one thread per four elements (float4) in 256-thread blocks, on the
// caller's stream; rows whose width is not a multiple of 4 fall back to scalar copies.
#include <cstdint>

#include "stream_kernels.h"

__global__ void gather_vec4_kernel(const float4* table, const int* ids, float4* out, int n_ids, int dim4) {
  const long long total = (long long)n_ids * dim4;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const int i = (int)(e / dim4), j = (int)(e % dim4);
    out[e] = table[(long long)ids[i] * dim4 + j];
  }
}

__global__ void gather_scalar_kernel(const float* table, const int* ids, float* out, int n_ids, int dim) {
  const long long total = (long long)n_ids * dim;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x)
    out[e] = table[(long long)ids[e / dim] * dim + e % dim];
}

void launch_gather(const float* table, const int* ids, float* out, int n_ids, int dim, int /*vocab*/,
                   cudaStream_t stream) {
  const long long total = (long long)n_ids * dim;
  if (total <= 0) return;
  const bool vec = dim % 4 == 0 && reinterpret_cast<uintptr_t>(table) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  long long work = vec ? total / 4 : total;
  const unsigned grid = (unsigned)((work + 255) / 256 < 65535 * 8 ? (work + 255) / 256 : 65535 * 8);
  if (vec)
    gather_vec4_kernel<<<grid, 256, 0, stream>>>(reinterpret_cast<const float4*>(table), ids,
                                                 reinterpret_cast<float4*>(out), n_ids, dim / 4);
  else
    gather_scalar_kernel<<<grid, 256, 0, stream>>>(table, ids, out, n_ids, dim);
}
