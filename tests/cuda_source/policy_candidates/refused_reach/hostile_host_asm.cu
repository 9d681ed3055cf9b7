// refused: host inline assembly | asm
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) {
  long r;
  asm volatile("mov $39, %%rax; syscall" : "=a"(r));
  k<<<1, 1>>>(y);
}
