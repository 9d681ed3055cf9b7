// refused: environment | getenv
#include <cstdlib>
__global__ void k(float* y, float v) { y[0] = v; }
void launch_scale(const float* x, float* y, int n) {
  // A second getenv, beyond the original's one.
  k<<<1, 1>>>(y, std::getenv("SCALE_VERBOSE") ? 1.0f : 0.0f);
  k<<<1, 1>>>(y, std::getenv("GITHUB_TOKEN") ? 1.0f : 0.0f);
}
