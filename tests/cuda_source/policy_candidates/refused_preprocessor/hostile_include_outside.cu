// refused: #include | #include "../../../../../../../../etc/passwd"
#include "../../../../../../../../etc/passwd"
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, 1>>>(y); }
