// Rejected (forks from its stream argument but never joins back): the side stream waits for the
// work queued on the caller's stream before the call, as a fork should, but the caller's stream is
// never made to wait for the side stream's kernel, so the caller (and timing on that stream) stops
// before it ends. The verification call's marker, queued right after the call, starts before the
// kernel ends: "ended ... after the work queued on the stream argument 'stream' was complete".
#include "stream_kernels.h"

__global__ void saxpy_forked(const float* x, float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy_stream(const float* x, float* y, float a, int n, cudaStream_t stream) {
  static cudaStream_t side = nullptr;
  static cudaEvent_t forked = nullptr;
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
  }
  if (n <= 0) return;
  cudaEventRecord(forked, stream);
  cudaStreamWaitEvent(side, forked, 0);
  saxpy_forked<<<(n + 255) / 256, 256, 0, side>>>(x, y, a, n);
  // (no cudaEventRecord on `side` + cudaStreamWaitEvent(stream, ...): the join is missing)
}
