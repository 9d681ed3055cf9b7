// passes
// Fork/join across two streams the way models write it: events named fork and join, a struct of
// them reached through . and ->, a parameter named fork, an enumerator, names in an unnamed
// namespace and a namespace of its own, a member function called join. None is libc's fork().
#include <cuda_runtime.h>
#include "../include/foo.h"

namespace {
cudaStream_t side_stream = nullptr;
}
namespace detail {
int fork_count = 0;
cudaEvent_t fork = nullptr;
}
static cudaEvent_t join_cached = nullptr;

enum class Stage { fork, join };

struct StreamPair {
  cudaStream_t main, side;
  cudaEvent_t fork, join;
  void wait(cudaStream_t s) const { cudaStreamWaitEvent(s, join, 0); }
};

struct Graph {
  cudaEvent_t fork = nullptr;
  void join(cudaStream_t s) { cudaStreamWaitEvent(s, fork, 0); }
  void run(cudaStream_t s) { join(s); }
};

__global__ void scale_lo(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) y[i] = 2.0f * x[i];
}
__global__ void scale_hi(const float* x, float* y, int n) {
  int i = n / 2 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

static void wait_on(cudaStream_t stream, cudaEvent_t fork) { cudaStreamWaitEvent(stream, fork, 0); }

void launch_scale(const float* x, float* y, int n) {
  cudaStream_t stream = 0;
  if (!side_stream) cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking);
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaEventRecord(fork, stream);
  wait_on(side_stream, fork);
  const int blocks = (n / 2 + FOO_BLOCK - 1) / FOO_BLOCK + 1;
  scale_lo<<<blocks, FOO_BLOCK, 0, stream>>>(x, y, n);
  scale_hi<<<blocks, FOO_BLOCK, 0, side_stream>>>(x, y, n);
  cudaEventRecord(join, side_stream);
  cudaStreamWaitEvent(stream, join, 0);
  StreamPair pair{stream, side_stream, fork, join};
  StreamPair* p = &pair;
  p->wait(stream);
  Graph g;
  g.fork = pair.fork;
  g.join(stream);
  Stage stage = Stage::fork;
  (void)stage;
  detail::fork = fork;
  ++detail::fork_count;
  join_cached = join;
  for (cudaEvent_t e : {fork, join}) cudaEventDestroy(e);
  auto sync_all = [&](cudaEvent_t join) { cudaEventSynchronize(join); };
  (void)sync_all;
}
