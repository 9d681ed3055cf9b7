// A compile bomb on the host side: an #include of a device that never ends (the candidate
// source policy refuses it; eval --candidate does not hold a person's file to the policy).
#include "/dev/zero"

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
