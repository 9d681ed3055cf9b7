// Launchers shaped like production ones (issue #12): they take the caller's cudaStream_t, and the
// gather takes token ids that must lie in [0, vocab). Declared once for the originals in this
// directory and the candidates that replace them (tests/profiler/candidates/saxpy_stream/).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

// y = a * x + y on `stream`.
void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream);

// out[i][j] = table[ids[i]][j] for i < n_ids, j < dim, on `stream`; table is vocab x dim.
void launch_gather(const float* table, const int* ids, float* out, int n_ids, int dim, int vocab, cudaStream_t stream);

// y = a * x in bfloat16 (each product computed in float, rounded to nearest), on `stream`.
void launch_scale_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, float a, int n, cudaStream_t stream);

// y = a * x + 1 through the scratch buffer tmp (the kernel's workspace), on `stream`.
void launch_scale_scratch(const float* x, float* y, float* tmp, float a, int n, cudaStream_t stream);
