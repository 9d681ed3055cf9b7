// refused: host inline assembly | __asm__
// An asm label renames a declaration to the symbol it names.
extern "C" void* get(const char*) __asm__("getenv");
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, get("HOME") ? 1 : 2>>>(y); }
