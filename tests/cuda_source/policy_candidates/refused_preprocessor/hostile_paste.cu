// refused: token pasting | ##
#define CAT(a, b) a##b
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) {
  void* f = (void*)&CAT(fop, en);
  k<<<1, f ? 1 : 2>>>(y);
}
