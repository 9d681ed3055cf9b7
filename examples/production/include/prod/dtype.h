// The model's element type and the small helpers every op shares, as a training codebase keeps
// them: bf16 by default, fp32 for the reference build (-DENABLE_FP32).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#if defined(ENABLE_FP32)
typedef float floatX;
#else
typedef __nv_bfloat16 floatX;
#endif

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Fails loudly where a launch went wrong, as production code does.
inline void cuda_check(cudaError_t error, const char* file, int line) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "[CUDA ERROR] at %s:%d: %s\n", file, line, cudaGetErrorString(error));
    std::exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))
