// refused: process | __libc_fork
// Beside events named fork and join of its own, a reference to libc's fork().
#include <cuda_runtime.h>
#include <unistd.h>
__global__ void k(float* y) { y[0] = 1; }
static void spawn() { __libc_fork(); }
void launch_scale(const float* x, float* y, int n) {
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaEventRecord(fork, 0);
  spawn();
  k<<<1, 1>>>(y);
  cudaEventRecord(join, 0);
}
