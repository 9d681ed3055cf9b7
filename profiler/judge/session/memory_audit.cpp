#include "profiler/judge/session/memory_audit.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

namespace kb::judge {
namespace {

// Free device memory once it has settled: the driver gives an ended process's memory back a
// moment after the process is reaped, so the reading is repeated until it stops rising (at most
// about two seconds). -1 when the device refuses the query.
int64_t settled_free_bytes() {
  int64_t last = -1;
  int steady = 0;
  for (int i = 0; i < 40 && steady < 3; ++i) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    const auto now = static_cast<int64_t>(free_bytes);
    steady = now <= last ? steady + 1 : 0;
    last = std::max(last, now);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return last;
}

}  // namespace

MemoryHeld end_servers_measuring_memory(JobProcesses& processes) {
  MemoryHeld held;
  const int64_t before = settled_free_bytes();
  processes.candidate.reset();
  const int64_t without_candidate = settled_free_bytes();
  processes.baseline.reset();
  const int64_t without_both = settled_free_bytes();
  if (before < 0 || without_candidate < 0 || without_both < 0) return held;
  held.candidate_bytes = std::max<int64_t>(0, without_candidate - before);
  held.original_bytes = std::max<int64_t>(0, without_both - without_candidate);
  spdlog::info("GPU memory held: the candidate's process {} MiB, the original's {} MiB", held.candidate_bytes >> 20,
               held.original_bytes >> 20);
  return held;
}

}  // namespace kb::judge
