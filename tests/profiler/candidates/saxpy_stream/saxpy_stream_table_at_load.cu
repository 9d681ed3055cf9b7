// Rejected by the citizen's ledger: the library sets up a device-side table in a static
// initializer ("precompute once at startup, not per call", as models write it), so merely loading
// it calls cudaMalloc and cudaMemcpy: in the caller's program that happens before main() has
// chosen a device or set its device flags, on device 0, whether or not the kernel is ever called.
// The saxpy itself is right.
#include <vector>

#include "stream_kernels.h"

namespace {

struct ScaleTable {
  float* device = nullptr;
  ScaleTable() {
    std::vector<float> ones(1024, 1.0f);
    if (cudaMalloc(&device, ones.size() * sizeof(float)) == cudaSuccess)
      cudaMemcpy(device, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice);
  }
};

const ScaleTable g_table;  // built when the library is loaded

}  // namespace

__global__ void saxpy_table(const float* __restrict__ x, float* __restrict__ y, float a, int n,
                            const float* __restrict__ unit) {
  const float one = unit[threadIdx.x % 1024];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = (a * one) * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  int grid = (n + 255) / 256;
  if (grid > 4096) grid = 4096;
  saxpy_table<<<grid, 256, 0, stream>>>(x, y, a, n, g_table.device);
}
