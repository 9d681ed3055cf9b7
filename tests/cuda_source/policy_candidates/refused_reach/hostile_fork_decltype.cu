// refused: process | fork
// Beside events named fork and join of its own, a reference to libc's fork().
#include <cuda_runtime.h>
#include <unistd.h>
__global__ void k(float* y) { y[0] = 1; }
static void spawn() { using P = decltype(&fork); P p = nullptr; (void)p; }
void launch_scale(const float* x, float* y, int n) {
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaEventRecord(fork, 0);
  spawn();
  k<<<1, 1>>>(y);
  cudaEventRecord(join, 0);
}
