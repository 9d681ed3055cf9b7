// passes
// An honest candidate with what fast kernels use: cooperative groups, bf16 and fp16, vectorized
// loads behind an alignment check, device PTX, the repository's header, the launcher's printf.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/pipeline>
#include <cub/block/block_reduce.cuh>
#include <thrust/device_vector.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include "../include/foo.h"
#include "foo.h"

namespace cg = cooperative_groups;
#define DEVICE_INLINE __device__ __forceinline__
#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) printf("%s\n", cudaGetErrorString(e)); } while (0)

// A comment may say fopen, getenv("HOME"), /proc/self/environ and asm("syscall") freely.
static const char* kNote = "strings may mention fopen and getenv too";

DEVICE_INLINE unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ float4 load4(const float* p) {
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

template <typename T>
__global__ void __launch_bounds__(256) scale_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  cg::thread_block block = cg::this_thread_block();
  const bool write = n > 0;
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (write && i + 3 < n && reinterpret_cast<uintptr_t>(x) % 16 == 0) {
    float4 v = load4(x + i);
    __nv_bfloat16 b = __float2bfloat16(v.x);
    __half h = __float2half(v.y);
    y[i] = 2.0f * __bfloat162float(b);
    y[i + 1] = 2.0f * __half2float(h);
    y[i + 2] = 2.0f * v.z;
    y[i + 3] = 2.0f * v.w;
  } else {
#pragma unroll 4
    for (int k = i; k < n && k < i + 4; ++k) y[k] = 2.0f * x[k];
  }
  if (lane_id() == 0 && i == 0) printf("device printf is fine\n");
  block.sync();
}

struct Loader {
  __device__ float read(const float* p) const { return *p; }
};

void launch_scale(const float* x, float* y, int n) {
  int blocks = std::max(1, (n / 4 + FOO_BLOCK - 1) / FOO_BLOCK);
  auto check = [](cudaError_t e) { return e == cudaSuccess; };
  scale_kernel<float><<<blocks, FOO_BLOCK>>>(x, y, n);
  CUDA_CHECK(cudaGetLastError());
  if (!check(cudaPeekAtLastError())) std::printf("%s: launch failed\n", kNote);
}
