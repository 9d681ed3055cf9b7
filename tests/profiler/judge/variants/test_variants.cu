// Variants for the kernelbot-harness GPU tests: one source, one KB_VARIANT_* macro per shared
// library. Each exports kb_launch as the bot's generated shim does. The saxpy family takes
// (x: input f32, y: inout f32, a: scalar f32, n: size i32); the scale family takes
// (in: input f32, out: output f32, n: size i32) and computes out = 2 * in.
#include <cuda_runtime.h>

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Kernels with external linkage: a variant uses some of them, and nvcc would warn about the rest
// if they were internal.
namespace kbtest {

__global__ void saxpy(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Same arithmetic, but consecutive threads touch elements 32 apart: uncoalesced and slow.
__global__ void saxpy_strided(const float* x, float* y, float a, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int columns = (n + 31) / 32;
  const int i = (t % 32) * columns + t / 32;
  if (t < columns * 32 && i < n) y[i] = a * x[i] + y[i];
}

__global__ void spin_then_saxpy(const float* x, float* y, float a, int n, uint64_t spin_ns) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < spin_ns);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_and_clobber_x(float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
    if (i % 1000 == 3) x[i] = -x[i];
  }
}

__global__ void wild_write(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* wild = reinterpret_cast<float*>(0x10);
  if (i < n) wild[i] = y[i];
}

__global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

template <typename... T>
void unused(const T&...) {}

// What a candidate may try to leave for the next job of a judge's session: a daemon named
// "kb-leftover" (double-forked, in a session of its own) and a file in its working directory.
void leave_something_behind() {
  static bool left = false;
  if (left) return;
  left = true;
  if (FILE* f = std::fopen("left-behind.txt", "w")) {
    std::fputs("for the next candidate\n", f);
    std::fclose(f);
  }
  if (::fork() != 0) return;  // the parent (the server) goes on; the child is never waited for
  ::setsid();
  if (::fork() != 0) ::_exit(0);
  ::prctl(PR_SET_NAME, "kb-leftover");
  for (int fd = 0; fd < 1024; ++fd) ::close(fd);
  for (;;) ::pause();
}

inline unsigned blocks_for(int n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace kbtest

using namespace kbtest;

extern "C" __attribute__((visibility("default"))) int kb_launch(void** a) {
#if defined(KB_VARIANT_SCALE_OK) || defined(KB_VARIANT_SCALE_PARTIAL)
  const float* in = static_cast<const float*>(a[0]);
  float* out = static_cast<float*>(a[1]);
  int n = *static_cast<int*>(a[2]);
#if defined(KB_VARIANT_SCALE_PARTIAL)
  n = n > 1024 ? n - 1024 : n;  // the last 1024 elements are never written
#endif
  scale<<<blocks_for(n, 256), 256>>>(in, out, n);
  return 0;
#else
  float* x = static_cast<float*>(a[0]);
  float* y = static_cast<float*>(a[1]);
  const float alpha = *static_cast<float*>(a[2]);
  const int n = *static_cast<int*>(a[3]);
  unused(x, y, alpha, n);  // not every variant uses every argument
#if defined(KB_VARIANT_SAXPY_OK) || defined(KB_VARIANT_SAXPY_PTDS)
  saxpy<<<blocks_for(n, 256), 256>>>(x, y, alpha, n);
#elif defined(KB_VARIANT_SAXPY_LEAVER)
  leave_something_behind();
  saxpy<<<blocks_for(n, 256), 256>>>(x, y, alpha, n);
#elif defined(KB_VARIANT_SAXPY_SLOW)
  saxpy_strided<<<blocks_for(n, 256), 256>>>(x, y, alpha, n);
#elif defined(KB_VARIANT_SAXPY_WRONG)
  saxpy<<<blocks_for(n, 256), 256>>>(x, y, alpha * 1.001f, n);  // 0.1% off: beyond rtol 1e-4
#elif defined(KB_VARIANT_SAXPY_TAIL)
  const int rounded = n / 256 * 256;  // right whenever n is a multiple of 256, wrong otherwise
  saxpy<<<blocks_for(rounded, 256), 256>>>(x, y, alpha, rounded);
#elif defined(KB_VARIANT_SAXPY_SIDESTREAM)
  static cudaStream_t side = nullptr;
  if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  spin_then_saxpy<<<blocks_for(n, 256), 256, 0, side>>>(x, y, alpha, n, 2'000'000);  // 2 ms, never awaited
#elif defined(KB_VARIANT_SAXPY_CACHE)
  // Computes once per output buffer, then replays that first answer: right on the first trial
  // at each size only.
  struct Entry {
    float* y;
    int n;
    float* saved;
  };
  static Entry cache[8];
  static int entries = 0;
  for (int e = 0; e < entries; ++e)
    if (cache[e].y == y && cache[e].n == n) {
      cudaMemcpyAsync(y, cache[e].saved, sizeof(float) * n, cudaMemcpyDeviceToDevice, 0);
      return 0;
    }
  saxpy<<<blocks_for(n, 256), 256>>>(x, y, alpha, n);
  if (entries < 8) {
    Entry& e = cache[entries++];
    e.y = y;
    e.n = n;
    cudaMalloc(&e.saved, sizeof(float) * n);
    cudaMemcpyAsync(e.saved, y, sizeof(float) * n, cudaMemcpyDeviceToDevice, 0);
  }
#elif defined(KB_VARIANT_SAXPY_MODINPUT)
  saxpy_and_clobber_x<<<blocks_for(n, 256), 256>>>(x, y, alpha, n);
#elif defined(KB_VARIANT_SAXPY_CRASH)
  wild_write<<<blocks_for(n, 256), 256>>>(y, n);
#elif defined(KB_VARIANT_SAXPY_EXIT)
  std::exit(0);
#elif defined(KB_VARIANT_SAXPY_BADLAUNCH)
  saxpy<<<blocks_for(n, 4096), 4096>>>(x, y, alpha, n);  // 4096 threads per block: refused at launch
#else
#error "define one KB_VARIANT_* macro"
#endif
  return 0;
#endif
}
