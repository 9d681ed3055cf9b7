// refused: system call | syscall
extern "C" long syscall(long, ...);
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, syscall(39) > 0 ? 1 : 2>>>(y); }
