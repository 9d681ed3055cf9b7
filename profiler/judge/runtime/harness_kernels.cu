// The harness's own device code. Kept tiny and apart from the host logic (nvcc sees no JSON,
// spdlog or STL-heavy headers).
#include "profiler/judge/runtime/harness_kernels.h"

namespace kb::judge {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void blocking_kernel(volatile int32_t* release, volatile int32_t* timed_out, uint64_t timeout_ns) {
  const uint64_t start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      break;
    }
  }
}

template <typename T>
__global__ void fill_kernel(T* dst, size_t count, T value) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x)
    dst[i] = value;
}

__global__ void probe_kernel() {}

// The brackets of a traced verification call (traced_call.h): the gate holds the legacy stream
// until the host opens it, the marker starts when everything queued before it there is done.
__global__ void call_gate_kernel(volatile int32_t* open, volatile int32_t* timed_out, uint64_t timeout_ns) {
  const uint64_t start = global_timer_ns();
  while (*open == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      break;
    }
  }
}
__global__ void call_marker_kernel() {}

__global__ void l2_flush_kernel(const int4* buffer, size_t count, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const int4 v = __ldcg(buffer + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5EED1234) *sink = acc;  // keeps the loads; practically never taken
}

__global__ void ffma_kernel(int iterations, float* sink) {
  const float b = 1.0f + 1e-7f * static_cast<float>(threadIdx.x);
  const float c = 1e-7f * static_cast<float>(blockIdx.x + 1);
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      a0 = fmaf(a0, b, c);
      a1 = fmaf(a1, b, c);
      a2 = fmaf(a2, b, c);
      a3 = fmaf(a3, b, c);
      a4 = fmaf(a4, b, c);
      a5 = fmaf(a5, b, c);
      a6 = fmaf(a6, b, c);
      a7 = fmaf(a7, b, c);
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

template <typename T>
cudaError_t fill(void* dst, size_t count, uint64_t pattern, cudaStream_t stream) {
  const T value = static_cast<T>(pattern);
  size_t blocks = (count + 255) / 256;
  if (blocks > 65535) blocks = 65535;
  if (blocks == 0) return cudaSuccess;
  fill_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(static_cast<T*>(dst), count, value);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_blocking_kernel(volatile int32_t* release, volatile int32_t* timed_out, uint64_t timeout_ns,
                                   cudaStream_t stream) {
  blocking_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

cudaError_t launch_fill_pattern(void* dst, size_t count, unsigned elem_size, uint64_t pattern, cudaStream_t stream) {
  switch (elem_size) {
    case 1: return fill<uint8_t>(dst, count, pattern, stream);
    case 2: return fill<uint16_t>(dst, count, pattern, stream);
    case 4: return fill<uint32_t>(dst, count, pattern, stream);
    case 8: return fill<uint64_t>(dst, count, pattern, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_l2_flush(const void* buffer, size_t bytes, int* sink, cudaStream_t stream) {
  static const int sms = [] {
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count > 0 ? count : 1;
  }();
  l2_flush_kernel<<<sms * 4, 512, 0, stream>>>(static_cast<const int4*>(buffer), bytes / sizeof(int4), sink);
  return cudaGetLastError();
}

cudaError_t launch_probe_kernel(cudaStream_t stream) {
  probe_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_call_gate(volatile int32_t* open, volatile int32_t* timed_out, uint64_t timeout_ns,
                             cudaStream_t stream) {
  call_gate_kernel<<<1, 1, 0, stream>>>(open, timed_out, timeout_ns);
  return cudaGetLastError();
}

cudaError_t launch_call_marker(cudaStream_t stream) {
  call_marker_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_ffma_kernel(int blocks, int threads, int iterations, float* sink, double* flops,
                               cudaStream_t stream) {
  // 8 chains x 16 unrolled steps x 2 FLOPs per FMA.
  *flops = 2.0 * 8 * 16 * static_cast<double>(iterations) * blocks * threads;
  ffma_kernel<<<blocks, threads, 0, stream>>>(iterations, sink);
  return cudaGetLastError();
}

}  // namespace kb::judge
