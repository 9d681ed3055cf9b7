#include "profiler/judge/buffers/guard_kernels.h"

namespace kb::judge {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerZone = 32;  // a zone is ~64-128 KiB: a few bytes per thread

// The guard byte at `position` of an allocation: splitmix64 of the key and the 8-byte word.
__device__ unsigned char guard_byte(unsigned long long key, unsigned long long position) {
  unsigned long long z = key + (position >> 3) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<unsigned char>(z >> (8 * (position & 7)));
}

__global__ void fill_guards_kernel(const GuardZone* zones) {
  const GuardZone z = zones[blockIdx.y];
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < z.bytes;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    z.begin[i] = guard_byte(z.key, z.position + i);
}

__global__ void check_guards_kernel(const GuardZone* zones, GuardFinding* findings) {
  const GuardZone z = zones[blockIdx.y];
  GuardFinding* f = findings + blockIdx.y;
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < z.bytes;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    // volatile: the bytes are what the variant left in memory, read once.
    const unsigned char got = *static_cast<volatile const unsigned char*>(z.begin + i);
    if (got == guard_byte(z.key, z.position + i)) continue;
    atomicAdd(&f->changed, 1ull);
    atomicMax(&f->first_inverted, ~i);
    atomicMax(&f->last, i);
  }
}

}  // namespace

cudaError_t launch_fill_guards(const GuardZone* zones, int count, cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  fill_guards_kernel<<<dim3(kBlocksPerZone, static_cast<unsigned>(count)), kThreads, 0, s>>>(zones);
  return cudaGetLastError();
}

cudaError_t launch_check_guards(const GuardZone* zones, int count, GuardFinding* findings, cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  check_guards_kernel<<<dim3(kBlocksPerZone, static_cast<unsigned>(count)), kThreads, 0, s>>>(zones, findings);
  return cudaGetLastError();
}

}  // namespace kb::judge
