// A launcher as code written before kernelbot has it: its block size a plain `#define` (no
// #ifndef guard, so -D cannot set it), which the builtin tuner tunes by editing the line. Shared
// by the search's tuning test and the PR's.
#pragma once

namespace kb::testing {

inline constexpr const char* kLegacyBlockDefineSource = R"(// y = a*x + y, written against an old framework.
#define SAXPY_BLOCK 128

__global__ void saxpy_kernel(unsigned n, float a, const float* x, float* y) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_k(float* y, int n) {
  saxpy_kernel<<<(n + SAXPY_BLOCK - 1) / SAXPY_BLOCK, SAXPY_BLOCK>>>(n, 2.0f, y, y);
}
)";

}  // namespace kb::testing
