// Accepted (an honest grid-wide barrier): the same persistent two-phase shape as the hand-rolled
// barriers the slice pass rejects, done right: cooperative_groups::this_grid().sync() in a
// cooperative launch (cudaLaunchCooperativeKernel), the grid sized by the occupancy API times the
// SMs the device reports, on the stream it is given. A cooperative launch guarantees every block
// runs at once, or is refused.
#include <cooperative_groups.h>

#include "stream_kernels.h"

namespace cg = cooperative_groups;

__global__ void saxpy_grid_synced(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size())) y[i] = a * x[i] + y[i];
  grid.sync();
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  if (n <= 0) return;
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, saxpy_grid_synced, 256, 0);
  void* args[] = {&x, &y, &a, &n};
  cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(saxpy_grid_synced), dim3(sms * per_sm), dim3(256), args, 0,
                              stream);
}
