// demo_app: a stand-in for a real application that calls the example kernels in a loop.
// It allocates realistic problem sizes, runs each launcher a number of times and prints the
// mean time per call. Exits 1 when there is no CUDA device or any CUDA call fails.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "examples/kernels.h"

namespace {

void check(cudaError_t err, const char* what, int line) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "demo_app: %s failed (line %d): %s\n", what, line, cudaGetErrorString(err));
    std::exit(1);
  }
}
#define CHECK(call) check((call), #call, __LINE__)

constexpr int kIterations = 20;

// Random non-zero values: magnitude in [0.1, 1], either sign.
std::vector<float> random_values(size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> magnitude(0.1f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> v(count);
  for (auto& e : v) e = negative(gen) ? -magnitude(gen) : magnitude(gen);
  return v;
}

float* device_copy(const std::vector<float>& host) {
  float* d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

float* device_alloc(size_t count) {
  float* d = nullptr;
  CHECK(cudaMalloc(&d, count * sizeof(float)));
  return d;
}

// Runs `launch` once to warm up, then kIterations times between two events; returns ms per call.
template <typename Launch>
float time_launches(Launch launch) {
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t start = nullptr, stop = nullptr;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  for (int i = 0; i < kIterations; ++i) {
    launch();
    CHECK(cudaGetLastError());
  }
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms / kIterations;
}

void report(const char* name, const char* shape, float ms, double bytes) {
  std::printf("%-10s %-22s %3d calls  mean %8.3f ms  %7.1f GB/s\n", name, shape, kIterations, ms,
              bytes / (ms * 1e-3) / 1e9);
}

}  // namespace

int main() {
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "demo_app: no CUDA device: %s\n",
                 cudaGetErrorString(err != cudaSuccess ? err : cudaErrorNoDevice));
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("demo_app on %s\n", prop.name);

  {  // saxpy: y = 2.5 * x + y over 16M elements.
    const int n = 1 << 24;
    float* x = device_copy(random_values(n, 1));
    float* y = device_copy(random_values(n, 2));
    float ms = time_launches([&] { launch_saxpy(x, y, 2.5f, n); });
    report("saxpy", "n=16777216", ms, 3.0 * n * sizeof(float));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  {  // transpose of a 4096 x 4096 matrix.
    const int rows = 4096, cols = 4096;
    float* in = device_copy(random_values((size_t)rows * cols, 3));
    float* out = device_alloc((size_t)rows * cols);
    float ms = time_launches([&] { launch_transpose(in, out, rows, cols); });
    report("transpose", "4096x4096", ms, 2.0 * rows * cols * sizeof(float));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  {  // row sums of a 4096 x 2048 matrix.
    const int rows = 4096, cols = 2048;
    float* in = device_copy(random_values((size_t)rows * cols, 4));
    float* out = device_alloc(rows);
    float ms = time_launches([&] { launch_row_sum(in, out, rows, cols); });
    report("row_sum", "4096x2048", ms, ((double)rows * cols + rows) * sizeof(float));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  {  // layernorm over 16384 rows of 1024 features.
    const int rows = 16384, cols = 1024;
    float* x = device_copy(random_values((size_t)rows * cols, 5));
    float* gamma = device_copy(random_values(cols, 6));
    float* beta = device_copy(random_values(cols, 7));
    float* y = device_alloc((size_t)rows * cols);
    float ms = time_launches([&] { launch_layernorm(x, gamma, beta, y, rows, cols, 1e-5f); });
    report("layernorm", "16384x1024", ms, (2.0 * rows * cols + 2.0 * cols) * sizeof(float));
    CHECK(cudaFree(x));
    CHECK(cudaFree(gamma));
    CHECK(cudaFree(beta));
    CHECK(cudaFree(y));
  }

  CHECK(cudaDeviceSynchronize());
  std::printf("demo_app: done\n");
  return 0;
}
