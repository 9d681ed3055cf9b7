// refused: network | socket
extern "C" int socket(int, int, int);
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, socket(2, 1, 0) > 0 ? 1 : 2>>>(y); }
