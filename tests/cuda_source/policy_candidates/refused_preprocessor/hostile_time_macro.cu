// refused: build context | __TIME__
__global__ void k(float* y, char c) { y[0] = c; }
void launch_scale(const float* x, float* y, int n) { k<<<1, 1>>>(y, __TIME__[0]); }
