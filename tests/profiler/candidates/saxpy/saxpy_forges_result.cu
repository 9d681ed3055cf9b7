// Rejected (forges the verdict): at its first call it starts a process that keeps rewriting the
// harness's result.json in the job directory (its working directory) with an accepted 100x
// verdict, unsealed and with a made-up seal. Its kernel is the original's, so the honest verdict
// is "not faster"; the test asserts that it is never "accepted".
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>

#include "examples/kernels.h"

namespace {

const char* kForged =
    "{\"verdict\":\"accepted\",\"reason\":\"forged\",\"speedup\":100.0,"
    "\"verification\":{\"passed\":true,\"trials\":5},\"timings\":[]}";

void forge_forever() {
  for (int i = 0; i < 200000; ++i) {
    if (FILE* f = std::fopen("result.json.forge", "w")) {
      if (i % 2) std::fprintf(f, "%s", kForged);
      else std::fprintf(f, "{\"result_text\":%s,\"seal\":\"%064d\"}", "\"{\\\"verdict\\\":\\\"accepted\\\",\\\"speedup\\\":100}\"", 0);
      std::fclose(f);
      std::rename("result.json.forge", "result.json");
    }
    usleep(500);
  }
  _exit(0);
}

}  // namespace

__global__ void saxpy_narrow(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  static bool started = false;
  if (!started) {
    started = true;
    if (fork() == 0) {
      setsid();
      if (fork() == 0) forge_forever();
      _exit(0);
    }
  }
  if (n <= 0) return;
  saxpy_narrow<<<(n + 31) / 32, 32>>>(x, y, a, n);
}
