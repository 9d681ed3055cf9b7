// Accepted, because each job's processes see one GPU (profiler/sandbox/gpu_confinement.h): a fast saxpy
// that writes garbage when it can reach a second GPU, through CUDA (a second device, which it
// could hide work on or use to disturb another search's timing) or through a second /dev/nvidiaN
// node (from which a process with CUDA_VISIBLE_DEVICES unset would open it). On a host with
// several GPUs and confinement off (KERNELBOT_SANDBOX_EVERY_GPU=1) it is rejected: the test's
// control.
#include <cuda_runtime.h>
#include <dirent.h>

#include <cctype>
#include <cstring>

#include "examples/kernels.h"

namespace {

int numbered_gpu_nodes() {
  int count = 0;
  if (DIR* dev = opendir("/dev")) {
    while (const dirent* e = readdir(dev)) {
      const char* digits = std::strncmp(e->d_name, "nvidia", 6) == 0 ? e->d_name + 6 : nullptr;
      if (!digits || !*digits) continue;
      bool all = true;
      for (const char* c = digits; *c; ++c) all = all && std::isdigit(static_cast<unsigned char>(*c));
      count += all ? 1 : 0;
    }
    closedir(dev);
  }
  return count;
}

bool reaches_another_gpu() {
  static const bool reaches = [] {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
    return devices > 1 || numbered_gpu_nodes() > 1;
  }();
  return reaches;
}

}  // namespace

__global__ void saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n, float poison) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poison != 0.0f ? poison : a * x[i] + y[i];
}

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  saxpy_256<<<(n + 255) / 256, 256>>>(x, y, a, n, reaches_another_gpu() ? 12345.0f : 0.0f);
}
