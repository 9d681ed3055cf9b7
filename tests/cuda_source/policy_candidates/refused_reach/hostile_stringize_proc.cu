// refused: file access | /proc
#define STR(x) #x
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, STR(/proc/self/environ)[0] ? 1 : 2>>>(y); }
