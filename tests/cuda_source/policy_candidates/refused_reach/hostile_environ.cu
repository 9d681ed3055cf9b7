// refused: environment | environ
extern char** environ;
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, environ ? 1 : 2>>>(y); }
