// Token embedding lookup, header-only: out[t, :] = table[ids[t], :] for `tokens` token ids in
// [0, vocab). The block size is the caller's choice (`threads`).
#pragma once

#include "prod/dtype.h"

__global__ void embedding_kernel(floatX* out, const int* ids, const floatX* table, int tokens, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tokens * dim) {
    int t = i / dim, d = i % dim;
    out[i] = table[(size_t)ids[t] * dim + d];
  }
}

inline void embedding_forward(floatX* out, const int* ids, const floatX* table, int tokens, int dim,
                              cudaStream_t stream = 0, int threads = 32) {
  // The default block size (32) caps occupancy at half; callers that pass nothing get it.
  embedding_kernel<<<ceil_div(tokens * dim, threads), threads, 0, stream>>>(out, ids, table, tokens, dim);
  cudaCheck(cudaGetLastError());
}
