#include "profiler/judge/timing/clock_monitor.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

namespace kb::judge {
namespace {

// The few NVML declarations used, as in nvml.h (stable ABI).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using InitFn = nvmlReturn_t (*)();
using ByBusIdFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);

}  // namespace

ClockMonitor::ClockMonitor(int cuda_device) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    reason_ = "NVML (libnvidia-ml.so.1) could not be loaded";
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<ByBusIdFn>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto max_clock = reinterpret_cast<ClockFn>(dlsym(library_, "nvmlDeviceGetMaxClockInfo"));
  get_clock_ = dlsym(library_, "nvmlDeviceGetClockInfo");
  if (!init || !by_bus || !max_clock || !get_clock_) {
    reason_ = "NVML lacks the clock functions";
    return;
  }
  if (init() != kNvmlSuccess) {
    reason_ = "nvmlInit failed";
    return;
  }
  initialized_ = true;
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) {
    reason_ = "the CUDA device's PCI bus id is unknown";
    return;
  }
  nvmlDevice_t device = nullptr;
  if (by_bus(bus_id, &device) != kNvmlSuccess) {
    reason_ = std::string("NVML does not know the device at PCI bus id ") + bus_id;
    return;
  }
  unsigned int mhz = 0;
  if (max_clock(device, kNvmlClockSm, &mhz) != kNvmlSuccess || mhz == 0) {
    reason_ = "NVML does not report the maximum SM clock";
    return;
  }
  max_mhz_ = mhz;
  device_ = device;
}

ClockMonitor::~ClockMonitor() {
  if (initialized_) {
    if (auto shutdown = reinterpret_cast<InitFn>(dlsym(library_, "nvmlShutdown"))) shutdown();
  }
}

double ClockMonitor::current_sm_mhz() const {
  if (!device_) return 0;
  unsigned int mhz = 0;
  if (reinterpret_cast<ClockFn>(get_clock_)(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return mhz;
}

std::string ClockMonitor::driver_version() const {
  if (!device_) return "";
  using VersionFn = nvmlReturn_t (*)(char*, unsigned int);
  auto get = reinterpret_cast<VersionFn>(dlsym(library_, "nvmlSystemGetDriverVersion"));
  char version[96] = {};
  if (!get || get(version, sizeof version) != kNvmlSuccess) return "";
  return version;
}

}  // namespace kb::judge
