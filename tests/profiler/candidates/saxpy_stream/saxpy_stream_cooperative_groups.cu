// Accepted (an honest cooperative-groups kernel on its stream): each block is split into 32-thread
// tiles (cg::tiled_partition of cg::this_thread_block); a tile loads a float4 per lane and the
// tile's lanes agree, through tile.all, whether the whole tile is in range before the vector
// path; a scalar tail covers n % 4 and unaligned buffers. Everything on the stream it is given.
#include <cooperative_groups.h>

#include <cstdint>

#include "stream_kernels.h"

namespace cg = cooperative_groups;

__global__ void saxpy_cg_vec4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int stride = gridDim.x * blockDim.x;
  for (int base = blockIdx.x * blockDim.x + tile.meta_group_rank() * 32; base < n4; base += stride) {
    const int i = base + static_cast<int>(tile.thread_rank());
    if (tile.all(i < n4)) {
      float4 xv = x[i], yv = y[i];
      yv.x = a * xv.x + yv.x;
      yv.y = a * xv.y + yv.y;
      yv.z = a * xv.z + yv.z;
      yv.w = a * xv.w + yv.w;
      y[i] = yv;
    } else if (i < n4) {
      float4 xv = x[i], yv = y[i];
      yv.x = a * xv.x + yv.x;
      yv.y = a * xv.y + yv.y;
      yv.z = a * xv.z + yv.z;
      yv.w = a * xv.w + yv.w;
      y[i] = yv;
    }
    tile.sync();
  }
}

__global__ void saxpy_cg_tail(const float* __restrict__ x, float* __restrict__ y, float a, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  int done = 0;
  if (aligned && n / 4 > 0) {
    const int n4 = n / 4;
    int grid = (n4 + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_cg_vec4<<<grid, 256, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), a, n4);
    done = n4 * 4;
  }
  if (done < n) {
    int grid = (n - done + 255) / 256;
    if (grid > 65535 * 4) grid = 65535 * 4;
    saxpy_cg_tail<<<grid, 256, 0, stream>>>(x, y, a, done, n);
  }
}
