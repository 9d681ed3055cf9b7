// libkernelbot_inject.so: loaded into the user's own program by the CUDA driver through
// CUDA_INJECTION64_PATH (`kernelbot profile -- <command>`). It records every kernel the program
// runs with the CUPTI activity API (CONCURRENT_KERNEL: name, grid, block, GPU start/end), sums
// them per (kernel, device, grid, block) as they arrive, and writes the sums as JSON at exit to
// $KERNELBOT_PROFILE_OUT ("%p" there becomes the process id, so every CUDA process of the
// workload writes its own file). Aggregating in the process keeps the file small for programs
// that launch millions of kernels.
#include <cupti.h>
#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

namespace {

constexpr size_t kBufferSize = 8 << 20;

struct LaunchKey {
  std::string mangled;
  uint32_t device;
  int32_t grid[3];
  int32_t block[3];
  bool operator<(const LaunchKey& o) const {
    return std::tie(mangled, device, grid[0], grid[1], grid[2], block[0], block[1], block[2]) <
           std::tie(o.mangled, o.device, o.grid[0], o.grid[1], o.grid[2], o.block[0], o.block[1], o.block[2]);
  }
};

struct LaunchSums {
  uint64_t calls = 0;
  uint64_t total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
  int registers = 0;
  int64_t static_shared = 0, dynamic_shared = 0;
};

std::mutex g_mutex;
std::map<LaunchKey, LaunchSums> g_sums;
uint64_t g_first_start = UINT64_MAX, g_last_end = 0, g_dropped = 0, g_records = 0;
bool g_initialized = false;

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    LaunchKey key{k->name ? k->name : "?",
                  k->deviceId,
                  {k->gridX, k->gridY, k->gridZ},
                  {k->blockX, k->blockY, k->blockZ}};
    LaunchSums& s = g_sums[key];
    const uint64_t ns = k->end > k->start ? k->end - k->start : 0;
    ++s.calls;
    s.total_ns += ns;
    s.min_ns = std::min(s.min_ns, ns);
    s.max_ns = std::max(s.max_ns, ns);
    s.registers = k->registersPerThread;
    s.static_shared = k->staticSharedMemory;
    s.dynamic_shared = k->dynamicSharedMemory;
    g_first_start = std::min<uint64_t>(g_first_start, k->start);
    g_last_end = std::max<uint64_t>(g_last_end, k->end);
    ++g_records;
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
  std::free(buffer);
}

std::string output_path() {
  const char* out = std::getenv("KERNELBOT_PROFILE_OUT");
  std::string path = out && *out ? out : "kernelbot-profile-%p.json";
  if (size_t at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
  return path;
}

std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (auto& c : raw)
    if (c == '\0') c = ' ';
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw;
}

void write_profile() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  nlohmann::json j;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    j["format"] = "kernelbot-workload-profile-1";
    j["pid"] = getpid();
    j["command"] = command_line();
    j["records"] = g_records;
    j["dropped_records"] = g_dropped;
    j["first_start_ns"] = g_first_start == UINT64_MAX ? 0 : g_first_start;
    j["last_end_ns"] = g_last_end;
    j["kernels"] = nlohmann::json::array();
    for (const auto& [key, s] : g_sums)
      j["kernels"].push_back({{"name", demangle(key.mangled)},
                              {"mangled", key.mangled},
                              {"device", key.device},
                              {"grid", {key.grid[0], key.grid[1], key.grid[2]}},
                              {"block", {key.block[0], key.block[1], key.block[2]}},
                              {"calls", s.calls},
                              {"total_ns", s.total_ns},
                              {"min_ns", s.min_ns},
                              {"max_ns", s.max_ns},
                              {"registers", s.registers},
                              {"static_shared_bytes", s.static_shared},
                              {"dynamic_shared_bytes", s.dynamic_shared}});
  }
  const std::string path = output_path();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump(1) << "\n";
    if (!f) {
      std::fprintf(stderr, "kernelbot-inject: cannot write %s\n", tmp.c_str());
      return;
    }
  }
  std::rename(tmp.c_str(), path.c_str());
}

void at_exit() { write_profile(); }

}  // namespace

// Called by the CUDA driver when it initializes, in every process that has
// CUDA_INJECTION64_PATH set. Returns 1 on success.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_initialized) return 1;
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "kernelbot-inject: CUPTI activity tracing could not be enabled; no profile is recorded\n");
    return 0;
  }
  g_initialized = true;
  // Registered after the CUDA runtime's own exit handler, so it runs first, while the
  // contexts still exist and their buffers can be flushed.
  std::atexit(at_exit);
  return 1;
}
