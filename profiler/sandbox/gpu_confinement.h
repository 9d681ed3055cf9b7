// One GPU per sandbox: the processes that run a job on GPU N (the judge, the original's and the
// candidate's servers, the calibration) see that GPU and no other. Two reasons:
//  - trust: a candidate measured on GPU 0 cannot launch work on GPU 1, where another kernel's
//    search is timing (nor hide its own work there);
//  - throughput: CUDA initialises every GPU a process can see when it starts (each is registered
//    with the unified-memory driver, its attributes read), so on a host with several GPUs every
//    candidate process paid for all of them, and contended with the other GPUs' judges doing the
//    same (issue #13: each search ran slower beside the other).
// Inside, CUDA_VISIBLE_DEVICES names the GPU by UUID, so the driver opens only it (it is device 0
// there), and of the numbered /dev/nvidiaN nodes only its own is bound into the namespace sandbox
// (the control nodes nvidiactl, nvidia-uvm, ... are shared by every GPU and stay), so no process
// inside can reach another GPU by resetting the variable.
#pragma once

#include <filesystem>
#include <string>

#include "core/result_types.h"

namespace kb::profiler {

struct SandboxCommand;

struct GpuConfinement {
  std::string uuid;         // "GPU-..."; empty: not confined (every GPU visible, numbered as outside)
  std::string device_node;  // "/dev/nvidia3"; empty: its minor number is unknown, every node is bound
  bool active() const { return !uuid.empty(); }
};

// The confinement to `device`: its UUID, and its node from the driver's
// <gpus_dir>/<bus id>/information (the entry whose "GPU UUID" is the device's, else whose "Bus
// Location" is its PCI bus id). Not active when the device has no UUID, or when
// KERNELBOT_SANDBOX_EVERY_GPU=1 (a diagnostic: the behaviour before, for measuring the difference).
GpuConfinement confine_to(const DeviceInfo& device, const std::filesystem::path& gpus_dir = "/proc/driver/nvidia/gpus");

// "/dev/nvidiaN" for the GPU with this UUID or PCI bus id, read from the driver's proc files;
// empty when no entry matches or the files are not there.
std::string nvidia_device_node(const std::string& uuid, const std::string& pci_bus_id,
                               const std::filesystem::path& gpus_dir);

// "0000:1b:00.0": lower case, a four-digit domain (NVML writes eight, the driver's files four).
std::string normal_pci_bus_id(const std::string& id);

// Sets the command's CUDA_VISIBLE_DEVICES and its view's device node (nothing when not active).
void apply_confinement(const GpuConfinement& gpu, SandboxCommand& command);

// The CUDA index of the device as processes inside see it: 0 when confined, else `index`.
int device_index_inside(const GpuConfinement& gpu, int index);

}  // namespace kb::profiler
