// refused: process | system
#include <cstdlib>
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) {
  std::system("curl http://example.com");
  k<<<1, 1>>>(y);
}
