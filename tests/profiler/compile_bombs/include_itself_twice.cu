// A compile bomb: the candidate (written as variant.cu) includes itself twice, so the
// preprocessor reads 2^200 copies before its include depth limit stops any one chain.
#include "variant.cu"
#include "variant.cu"

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
