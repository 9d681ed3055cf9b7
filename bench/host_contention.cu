// host_contention: what two GPUs of one host share. Each search worker drives its own GPU, yet on the
// H100 hosts lent to us a search beside another (on the other GPU, in this process or another) ran
// 30-40% slower in every phase. This program times the host-side operations a judge's job is made
// of, first on one GPU alone, then on GPU 0 and GPU 1 at the same time (two processes, each seeing
// only its GPU, as kernelbot's sandboxes do), and prints a table of the slowdowns: which of the CPU,
// host memory, the driver (process start, allocation, copies) or the GPU itself is shared.
//   host_contention               the comparison (needs two GPUs; with one, only the alone column)
//   host_contention --worker      one pass on the visible GPU 0, a "phase seconds" line each
#include <cuda.h>
#include <cuda_runtime.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/number_format.h"

namespace {

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void empty_kernel() {}

constexpr size_t kCopyBytes = size_t{64} << 20;  // one saxpy input at n = 16M
constexpr int kN = 16 << 20;

// The three steps of a fresh CUDA process, each a child of its own: exec alone, the driver's
// start-up (cuInit: opening the devices), and a context with an allocation and a kernel.
int child_exec() { return 0; }
int child_cuinit() {
  CUdevice d;
  return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&d, 0) == CUDA_SUCCESS ? 0 : 1;
}

// A candidate's server: a fresh process that creates a context, allocates, loads and runs a kernel.
int child_start() {
  CHECK(cudaSetDevice(0));
  float* x = nullptr;
  CHECK(cudaMalloc(&x, kCopyBytes));
  empty_kernel<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(x));
  return 0;
}

// Pure core speed: a dependent chain in registers (turbo, throttling, a CPU quota).
double phase_cpu_spin() {
  double t = now_s();
  uint64_t s = 88172645463325252ull;
  for (long i = 0; i < 400'000'000; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
  }
  volatile uint64_t sink = s;
  (void)sink;
  return now_s() - t;
}

// Host memory bandwidth: what generating fresh inputs costs.
double phase_host_memory() {
  std::vector<uint32_t> buf(kCopyBytes * 4 / sizeof(uint32_t));
  double t = now_s();
  for (int r = 0; r < 8; ++r) {
    uint32_t s = 2463534242u + r;
    for (auto& v : buf) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      v = s;
    }
  }
  volatile uint32_t sink = buf[buf.size() / 2];
  (void)sink;
  return now_s() - t;
}

double phase_process(const char* self, const char* child) {
  double t = now_s();
  for (int i = 0; i < 10; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execl(self, self, child, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child start failed\n");
      std::exit(1);
    }
  }
  return now_s() - t;
}

double phase_malloc_free() {
  double t = now_s();
  for (int i = 0; i < 40; ++i) {
    void* p = nullptr;
    CHECK(cudaMalloc(&p, size_t{256} << 20));
    CHECK(cudaFree(p));
  }
  return now_s() - t;
}

double phase_copies(bool pinned) {
  void* host = nullptr;
  if (pinned) CHECK(cudaMallocHost(&host, kCopyBytes));
  else host = std::malloc(kCopyBytes);
  std::memset(host, 1, kCopyBytes);
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, kCopyBytes));
  double t = now_s();
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaMemcpy(dev, host, kCopyBytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(host, dev, kCopyBytes, cudaMemcpyDeviceToHost));
  }
  double took = now_s() - t;
  CHECK(cudaFree(dev));
  if (pinned) CHECK(cudaFreeHost(host));
  else std::free(host);
  return took;
}

// The timing loop's host side: launch, record, wait, many times (launch latency, event waits).
double phase_launch_sync() {
  cudaEvent_t e;
  CHECK(cudaEventCreate(&e));
  double t = now_s();
  for (int i = 0; i < 20000; ++i) {
    empty_kernel<<<1, 1>>>();
    CHECK(cudaEventRecord(e));
    CHECK(cudaEventSynchronize(e));
  }
  double took = now_s() - t;
  CHECK(cudaEventDestroy(e));
  return took;
}

// The GPU alone: back-to-back saxpy at n = 16M, GPU time from events.
double phase_gpu_kernels() {
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));
  CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  CHECK(cudaMemset(y, 0, kN * sizeof(float)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < 5000; ++i) saxpy<<<(kN + 255) / 256, 256>>>(kN, 2.0f, x, y);
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return ms / 1000.0;
}

const char* const kPhases[] = {"cpu_spin",    "host_memory",   "process_exec", "process_cuinit", "process_start",
                               "malloc_free", "copy_pageable", "copy_pinned",  "launch_sync",    "gpu_kernels"};

int worker(const char* self) {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  std::printf("cpu_spin %.4f\n", phase_cpu_spin());
  std::printf("host_memory %.4f\n", phase_host_memory());
  std::printf("process_exec %.4f\n", phase_process(self, "--child-exec"));
  std::printf("process_cuinit %.4f\n", phase_process(self, "--child-cuinit"));
  std::printf("process_start %.4f\n", phase_process(self, "--child-start"));
  std::printf("malloc_free %.4f\n", phase_malloc_free());
  std::printf("copy_pageable %.4f\n", phase_copies(false));
  std::printf("copy_pinned %.4f\n", phase_copies(true));
  std::printf("launch_sync %.4f\n", phase_launch_sync());
  std::printf("gpu_kernels %.4f\n", phase_gpu_kernels());
  return 0;
}

struct Running {
  pid_t pid;
  FILE* out;
};

// Starts a worker that sees only GPU `gpu`.
Running start_worker(const char* self, int gpu) {
  int fds[2];
  if (::pipe(fds) != 0) std::exit(1);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    ::setenv("CUDA_VISIBLE_DEVICES", std::to_string(gpu).c_str(), 1);
    ::execl(self, self, "--worker", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  return {pid, ::fdopen(fds[0], "r")};
}

std::map<std::string, double> finish(Running r) {
  std::map<std::string, double> times;
  char name[64];
  double s = 0;
  while (std::fscanf(r.out, "%63s %lf", name, &s) == 2) times[name] = s;
  std::fclose(r.out);
  int status = 0;
  ::waitpid(r.pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "host_contention: a worker failed\n");
    std::exit(1);
  }
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  const char* self = "/proc/self/exe";
  if (argc > 1 && std::strcmp(argv[1], "--child-exec") == 0) return child_exec();
  if (argc > 1 && std::strcmp(argv[1], "--child-cuinit") == 0) return child_cuinit();
  if (argc > 1 && std::strcmp(argv[1], "--child-start") == 0) return child_start();
  if (argc > 1 && std::strcmp(argv[1], "--worker") == 0) return worker(self);
  if (argc > 1) {
    std::printf("usage: host_contention [--worker]\n"
                "  times a judge's host-side operations on GPU 0 alone, then on GPUs 0 and 1 at once\n");
    return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
  }
  int gpus = 0;
  CHECK(cudaGetDeviceCount(&gpus));
  // The parent holds no context (it would count as a third client of GPU 0).
  std::map<std::string, double> alone = finish(start_worker(self, 0));
  std::map<std::string, double> beside0, beside1;
  if (gpus >= 2) {
    Running a = start_worker(self, 0), b = start_worker(self, 1);
    beside0 = finish(a);
    beside1 = finish(b);
  }
  std::printf("%-15s %10s %14s %14s %8s\n", "phase", "alone s", "GPU 0 beside", "GPU 1 beside", "ratio");
  for (const char* p : kPhases) {
    if (gpus >= 2) {
      double worst = beside0[p] > beside1[p] ? beside0[p] : beside1[p];
      std::printf("%-15s %10.3f %14.3f %14.3f %8s\n", p, alone[p], beside0[p], beside1[p],
                  kb::format_speedup(worst / alone[p]).c_str());
    } else {
      std::printf("%-15s %10.3f %14s %14s %8s\n", p, alone[p], "-", "-", "-");
    }
  }
  std::printf("(each phase's seconds; ratio: the slower of the two beside runs over alone. Phases: cpu_spin "
              "a register loop; host_memory 8 fills of 256 MB; process_exec, _cuinit, _start: 10 fresh processes "
              "that exit, start the driver, create a context (allocate, run a kernel); "
              "malloc_free 40 x 256 MB; copies 20 x 64 MB each way; launch_sync 20000 launch+event waits; "
              "gpu_kernels 5000 saxpy n=16M, GPU time)\n");
  return 0;
}
