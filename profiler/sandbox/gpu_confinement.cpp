#include "profiler/sandbox/gpu_confinement.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/text.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

// The "Key: value" lines of one GPU's information file.
struct GpuEntry {
  std::string uuid, bus, minor;
};

GpuEntry read_entry(const fs::path& file) {
  GpuEntry e;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "GPU UUID") e.uuid = lower(value);
    else if (key == "Bus Location") e.bus = normal_pci_bus_id(value);
    else if (key == "Device Minor") e.minor = value;
  }
  return e;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::string normal_pci_bus_id(const std::string& id) {
  std::string s = lower(trim(id));
  const size_t colon = s.find(':');
  // "00000000:1b:00.0" -> "0000:1b:00.0"; a bus id without a domain is taken as it is.
  if (colon != std::string::npos && s.find(':', colon + 1) != std::string::npos && colon > 4) s = s.substr(colon - 4);
  return s;
}

std::string nvidia_device_node(const std::string& uuid, const std::string& pci_bus_id, const fs::path& gpus_dir) {
  std::error_code ec;
  std::string by_bus;
  const std::string want_uuid = lower(uuid), want_bus = normal_pci_bus_id(pci_bus_id);
  for (const auto& dir : fs::directory_iterator(gpus_dir, ec)) {
    const GpuEntry e = read_entry(dir.path() / "information");
    if (!all_digits(e.minor)) continue;
    if (!want_uuid.empty() && e.uuid == want_uuid) return "/dev/nvidia" + e.minor;
    const std::string bus = e.bus.empty() ? normal_pci_bus_id(dir.path().filename().string()) : e.bus;
    if (!want_bus.empty() && bus == want_bus) by_bus = "/dev/nvidia" + e.minor;
  }
  return by_bus;
}

GpuConfinement confine_to(const DeviceInfo& device, const fs::path& gpus_dir) {
  if (const char* every = std::getenv("KERNELBOT_SANDBOX_EVERY_GPU"); every && std::string(every) == "1") return {};
  GpuConfinement gpu;
  gpu.uuid = device.uuid;
  if (gpu.active()) gpu.device_node = nvidia_device_node(device.uuid, device.pci_bus_id, gpus_dir);
  return gpu;
}

void apply_confinement(const GpuConfinement& gpu, SandboxCommand& command) {
  if (!gpu.active()) return;
  command.extra_env["CUDA_VISIBLE_DEVICES"] = gpu.uuid;
  command.view.gpu_device_node = gpu.device_node;
}

int device_index_inside(const GpuConfinement& gpu, int index) { return gpu.active() ? 0 : index; }

}  // namespace kb::profiler
