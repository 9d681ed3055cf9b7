// A compile bomb: a thousand constant evaluations, each just under the front end's step limit
// (cudafe++ and the host compiler both evaluate them), minutes of CPU in a few hundred MB.
constexpr unsigned long long slow(unsigned long long n) {
  unsigned long long s = 0;
  for (unsigned long long i = 0; i < n; ++i) s += i ^ (s >> 3);
  return s;
}
#define ONE static_assert(slow((1ULL << 16) + __COUNTER__) != 7, "");
#define TEN ONE ONE ONE ONE ONE ONE ONE ONE ONE ONE
#define HUNDRED TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN
HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
