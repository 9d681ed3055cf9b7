// refused: environment | getenv
// A variable at file scope named getenv: in a shared library the dynamic loader binds its
// address to libc's getenv, which the launcher then calls.
#include <cstdio>
char getenv;
__global__ void k(float* y) { y[0] = 1; }
void launch_scale(const float* x, float* y, int n) {
  using Get = char* (*)(const char*);
  std::printf("%s\n", reinterpret_cast<Get>(&getenv)("GITHUB_TOKEN"));
  k<<<1, 1>>>(y);
}
