#include "profiler/device_query.h"

#include <cuda_runtime.h>

#include <cctype>
#include <string>

namespace kb::profiler {

namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

std::string describe_no_device(int error, int count, int driver_version, int runtime_version) {
  const auto err = static_cast<cudaError_t>(error);
  // Without any driver the runtime says "insufficient driver" too: that case comes first.
  if (driver_version == 0) return "no NVIDIA driver is installed (libcuda.so.1 could not be loaded)";
  if (err == cudaErrorInsufficientDriver || (driver_version > 0 && driver_version < runtime_version))
    return "the NVIDIA driver supports CUDA up to " + cuda_version(driver_version) + ", older than the CUDA " +
           cuda_version(runtime_version) +
           " runtime kernelbot was built with: update the driver (or build "
           "kernelbot with an older toolkit)";
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    return "the NVIDIA driver (CUDA " + cuda_version(driver_version) +
           ") sees no GPU (none installed, or CUDA_VISIBLE_DEVICES hides them)";
  return std::string(cudaGetErrorString(err)) + " (driver CUDA " + cuda_version(driver_version) + ")";
}

std::vector<DeviceInfo> query_devices() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);  // 0 when no driver (libcuda) could be loaded
    cudaRuntimeGetVersion(&runtime);
    throw NoDeviceError("no CUDA device: " + describe_no_device(static_cast<int>(err), count, driver, runtime) +
                        ". kernelbot measures kernels on a GPU; run it on a machine with an NVIDIA GPU and driver "
                        "(a self-hosted runner labelled 'gpu' in GitHub Actions).");
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    char uuid[64];
    const auto* b = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
    snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    d.uuid = uuid;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) {
      d.pci_bus_id = bus;
      for (char& c : d.pci_bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    d.l2_bytes = p.l2CacheSize;
    d.memory_bytes = static_cast<int64_t>(p.totalGlobalMem);
    d.driver_version = std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
    d.runtime_version = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
    devices.push_back(d);
  }
  if (devices.empty()) throw NoDeviceError("no CUDA device: device properties could not be read");
  return devices;
}

}  // namespace kb::profiler
