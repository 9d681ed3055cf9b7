// A forward step that calls every op once on random data, timed: the application's own
// workload (kernelbot's `profile` can run it, and `init` must not mistake main() for a kernel).
#include <cstdio>
#include <random>
#include <vector>

#include "prod/embedding.cuh"
#include "prod/ops.h"

namespace {

// The logits of this toy step: a ramp per row, set on the GPU.
__global__ void fill_logits_kernel(float* logits, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) logits[i] = 0.01f * (i % cols);
}

floatX* device_random(size_t count, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<floatX> host(count);
  for (auto& v : host) v = (floatX)normal(rng);
  floatX* d = nullptr;
  cudaCheck(cudaMalloc(&d, count * sizeof(floatX)));
  cudaCheck(cudaMemcpy(d, host.data(), count * sizeof(floatX), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device: this program needs a GPU\n");
    return 1;
  }
  const int B = 8, T = 1024, C = 768, V = 50257, NC = 4 * C;
  std::mt19937 rng(1234);
  cudaStream_t stream;
  cudaCheck(cudaStreamCreate(&stream));

  std::vector<int> ids(B * T);
  for (auto& id : ids) id = static_cast<int>(rng() % V);
  int* d_ids = nullptr;
  cudaCheck(cudaMalloc(&d_ids, ids.size() * sizeof(int)));
  cudaCheck(cudaMemcpy(d_ids, ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice));
  floatX* wte = device_random((size_t)V * C, rng);
  floatX* bias = device_random(NC, rng);
  floatX* act = device_random((size_t)B * T * NC, rng);
  floatX *emb = nullptr, *out = nullptr;
  cudaCheck(cudaMalloc(&emb, (size_t)B * T * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&out, (size_t)B * T * NC * sizeof(floatX)));
  float *logits = nullptr, *probs = nullptr;
  cudaCheck(cudaMalloc(&logits, (size_t)B * T * 1024 * sizeof(float)));
  cudaCheck(cudaMalloc(&probs, (size_t)B * T * 1024 * sizeof(float)));
  fill_logits_kernel<<<ceil_div(B * T * 1024, 256), 256, 0, stream>>>(logits, B * T, 1024);

  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start, stream));
  embedding_forward(emb, d_ids, wte, B * T, C, stream);
  add_bias_forward(out, act, bias, B * T, NC, stream);
  bias_gelu_forward(out, act, bias, B * T, NC, stream);
  softmax_forward(probs, logits, B * T, 1024, stream);
  cudaCheck(cudaEventRecord(stop, stream));
  cudaCheck(cudaEventSynchronize(stop));
  float ms = 0;
  cudaCheck(cudaEventElapsedTime(&ms, start, stop));
  std::printf("forward step: %.3f ms\n", ms);

  for (void* p : {(void*)d_ids, (void*)wte, (void*)bias, (void*)act, (void*)emb, (void*)out, (void*)logits,
                  (void*)probs})
    cudaCheck(cudaFree(p));
  cudaCheck(cudaStreamDestroy(stream));
  return 0;
}
