// refused: file access | fopen
// A raw string that a naive tokenizer ends early must not hide what follows it.
#include <cstdio>
static const char* s = R"x(")x"; static FILE* f = fopen("/tmp/x", "w"); static const char* t = R"x(")x";
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) { k<<<1, 1>>>(y); }
