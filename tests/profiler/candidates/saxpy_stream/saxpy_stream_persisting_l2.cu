// Rejected by the citizen's ledger: on its first call it sets aside the GPU's largest persisting
// L2 portion and marks x persisting in the caller's stream's access policy window (a CUDA
// best-practices "optimization" models copy for data they think is reused), and never puts either
// back: every other kernel of the caller's program loses that L2 and the caller's stream keeps a
// window onto a buffer it may free.
#include <cstdint>

#include "stream_kernels.h"

__global__ void saxpy_persist(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static bool configured = false;
  if (n <= 0) return;
  if (!configured) {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, device);
    if (prop.persistingL2CacheMaxSize > 0) {
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize);
      cudaStreamAttrValue attr{};
      attr.accessPolicyWindow.base_ptr = const_cast<float*>(x);
      attr.accessPolicyWindow.num_bytes = sizeof(float) * static_cast<size_t>(n) < static_cast<size_t>(prop.accessPolicyMaxWindowSize)
                                              ? sizeof(float) * static_cast<size_t>(n)
                                              : static_cast<size_t>(prop.accessPolicyMaxWindowSize);
      attr.accessPolicyWindow.hitRatio = 1.0f;
      attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
      attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
      cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    }
    configured = true;
  }
  int grid = (n + 255) / 256;
  if (grid > 4096) grid = 4096;
  saxpy_persist<<<grid, 256, 0, stream>>>(x, y, a, n);
}
