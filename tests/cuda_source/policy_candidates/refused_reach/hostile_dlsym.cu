// refused: dynamic loading | dlsym
extern "C" void* dlsym(void*, const char*);
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, dlsym(nullptr, "fork") ? 1 : 2>>>(y); }
