#include "profiler/judge/timing/calibration.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "profiler/device_query.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/harness_kernels.h"
#include "profiler/judge/timing/clock_monitor.h"
#include "profiler/judge/timing/timing_stats.h"

namespace kb::judge {
namespace {

// Median of `runs` event-timed executions of `work` after `warmup` untimed ones, in ms.
template <typename Work>
double median_ms(int warmup, int runs, Work work) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "creating an event");
  cuda_check(cudaEventCreate(&stop), "creating an event");
  for (int i = 0; i < warmup; ++i) work();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    cuda_check(cudaEventRecord(start, cudaStreamLegacy), "recording an event");
    work();
    cuda_check(cudaEventRecord(stop, cudaStreamLegacy), "recording an event");
    cuda_check(cudaEventSynchronize(stop), "running a calibration step");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start, stop), "reading events");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(times).median;
}

double measure_copy_bandwidth_gbps() {
  size_t free_bytes = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  const size_t bytes = std::min<size_t>(size_t{1} << 30, free_bytes / 4) / 256 * 256;
  if (bytes < (size_t{64} << 20)) throw HarnessError("too little free device memory to measure copy bandwidth");
  void *src = nullptr, *dst = nullptr;
  cuda_check(cudaMalloc(&src, bytes), "allocating the copy source");
  cuda_check(cudaMalloc(&dst, bytes), "allocating the copy destination");
  cuda_check(cudaMemset(src, 1, bytes), "initializing the copy source");
  const double ms = median_ms(3, 15, [&] {
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy), "copying");
  });
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;  // read + written
}

double measure_fp32_tflops() {
  int device = 0, sms = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
  const int threads = 256, blocks = sms * 8, iterations = 4096;
  void* memory = nullptr;
  cuda_check(cudaMalloc(&memory, sizeof(float) * threads * blocks), "allocating the FFMA sink");
  auto* sink = static_cast<float*>(memory);
  double flops = 0;
  const double ms = median_ms(2, 10, [&] {
    cuda_check(launch_ffma_kernel(blocks, threads, iterations, sink, &flops, cudaStreamLegacy), "launching FFMA");
  });
  cudaFree(sink);
  return flops / (ms * 1e-3) / 1e12;
}

}  // namespace

DeviceInfo describe_device(int device) {
  for (auto d : profiler::query_devices())
    if (d.index == device) {
      // The CUDA runtime only knows the driver's CUDA version ("13.0"); NVML knows its release.
      const std::string release = ClockMonitor(device).driver_version();
      if (!release.empty()) d.driver_version = release;
      return d;
    }
  throw HarnessError("CUDA device " + std::to_string(device) + " does not exist");
}

DeviceInfo calibrate_device(int device) {
  DeviceInfo info = describe_device(device);
  cuda_check(cudaSetDevice(device), "selecting the device");
  info.copy_bandwidth_gbps = measure_copy_bandwidth_gbps();
  info.fp32_tflops = measure_fp32_tflops();
  spdlog::info("{}: device-to-device copy {:.0f} GB/s (read + written), FP32 FFMA {:.1f} TFLOP/s", info.name,
               info.copy_bandwidth_gbps, info.fp32_tflops);
  return info;
}

}  // namespace kb::judge
