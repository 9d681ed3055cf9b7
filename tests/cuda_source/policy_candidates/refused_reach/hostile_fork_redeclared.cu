// refused: process | fork
// Its own declaration of fork with C linkage is libc's fork(), called from where a local event
// of that name is out of scope.
#include <cuda_runtime.h>
extern "C" int fork();
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) {
  {
    cudaEvent_t fork;
    cudaEventCreate(&fork);
  }
  if (fork() == 0) k<<<1, 1>>>(y);
}
