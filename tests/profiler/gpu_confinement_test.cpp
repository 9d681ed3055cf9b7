// One GPU per sandbox (profiler/sandbox/gpu_confinement.h), on the CPU: finding a GPU's device node in
// the driver's proc files (by UUID, else by bus id), choosing the nodes to bind, and what a job's
// sandboxed command gets (CUDA_VISIBLE_DEVICES, the node, the device numbered 0 inside).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/sandbox/gpu_confinement.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

class GpuConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-gpu-confinement-" + std::to_string(getpid()));
    fs::remove_all(root_);
    gpu("0000:18:00.0", "GPU-aaaaaaaa-0000-1111-2222-333333333333", 0);
    gpu("0000:2a:00.0", "GPU-BBBBBBBB-0000-1111-2222-333333333333", 1);
    // A driver that hides UUIDs from this user writes "??": found by bus id.
    gpu("0000:3c:00.0", "GPU-" + std::string(8, '?') + "-" + std::string(4, '?'), 2);
  }
  void TearDown() override { fs::remove_all(root_); }

  // One GPU's /proc/driver/nvidia/gpus/<bus>/information, as driver 580 writes it.
  void gpu(const std::string& bus, const std::string& uuid, int minor) {
    fs::create_directories(gpus() / bus);
    std::ofstream(gpus() / bus / "information") << "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 42\nGPU UUID: \t "
                                                << uuid << "\nVideo BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\n"
                                                << "DMA Size: \t 52 bits\nBus Location: \t " << bus
                                                << "\nDevice Minor: \t " << minor << "\nGPU Excluded:\t No\n";
  }
  fs::path gpus() const { return root_ / "gpus"; }

  fs::path root_;
};

TEST_F(GpuConfinementTest, TheNodeIsFoundByUuidWhateverItsCase) {
  EXPECT_EQ(nvidia_device_node("GPU-aaaaaaaa-0000-1111-2222-333333333333", "", gpus()), "/dev/nvidia0");
  EXPECT_EQ(nvidia_device_node("GPU-bbbbbbbb-0000-1111-2222-333333333333", "0000:18:00.0", gpus()), "/dev/nvidia1")
      << "the UUID decides over a bus id that names another GPU";
}

TEST_F(GpuConfinementTest, WithoutAMatchingUuidTheBusIdDecidesInEitherSpelling) {
  EXPECT_EQ(nvidia_device_node("GPU-cccccccc-0000-1111-2222-333333333333", "0000:3c:00.0", gpus()), "/dev/nvidia2");
  EXPECT_EQ(nvidia_device_node("", "00000000:3C:00.0", gpus()), "/dev/nvidia2") << "NVML's eight-digit domain";
  EXPECT_EQ(nvidia_device_node("GPU-cccccccc-0000-1111-2222-333333333333", "0000:4d:00.0", gpus()), "");
  EXPECT_EQ(nvidia_device_node("GPU-aaaaaaaa-0000-1111-2222-333333333333", "", root_ / "no-driver-here"), "");
  EXPECT_EQ(normal_pci_bus_id(" 00000000:1B:00.0\n"), "0000:1b:00.0");
  EXPECT_EQ(normal_pci_bus_id("0000:1B:00.0"), "0000:1b:00.0");
}

TEST_F(GpuConfinementTest, OnlyTheGpusOwnNumberedNodeIsBoundBesideTheSharedOnes) {
  const fs::path dev = root_ / "dev";
  fs::create_directories(dev / "nvidia-caps");
  for (const char* node : {"nvidia0", "nvidia1", "nvidia12", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                           "nvidia-modeset", "null", "nvme0"})
    std::ofstream(dev / node) << "";
  auto names = [&](const std::vector<std::string>& nodes) {
    std::vector<std::string> out;
    for (const auto& n : nodes) out.push_back(fs::path(n).filename().string());
    return out;
  };
  EXPECT_EQ(names(gpu_device_nodes(dev, "/dev/nvidia1")),
            (std::vector<std::string>{"nvidia-caps", "nvidia-modeset", "nvidia-uvm", "nvidia-uvm-tools", "nvidia1",
                                      "nvidiactl"}));
  EXPECT_EQ(names(gpu_device_nodes(dev, "")),
            (std::vector<std::string>{"nvidia-caps", "nvidia-modeset", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0",
                                      "nvidia1", "nvidia12", "nvidiactl"}));
}

TEST_F(GpuConfinementTest, AConfinedCommandSeesItsGpuByUuidAsDeviceZero) {
  DeviceInfo d;
  d.index = 1;
  d.uuid = "GPU-bbbbbbbb-0000-1111-2222-333333333333";
  d.pci_bus_id = "0000:2a:00.0";
  const GpuConfinement gpu = confine_to(d, gpus());
  ASSERT_TRUE(gpu.active());
  EXPECT_EQ(gpu.device_node, "/dev/nvidia1");
  EXPECT_EQ(device_index_inside(gpu, 1), 0);
  SandboxCommand cmd;
  apply_confinement(gpu, cmd);
  EXPECT_EQ(cmd.extra_env.at("CUDA_VISIBLE_DEVICES"), d.uuid);
  EXPECT_EQ(cmd.view.gpu_device_node, "/dev/nvidia1");

  setenv("KERNELBOT_SANDBOX_EVERY_GPU", "1", 1);
  const GpuConfinement every = confine_to(d, gpus());
  unsetenv("KERNELBOT_SANDBOX_EVERY_GPU");
  EXPECT_FALSE(every.active());
  EXPECT_EQ(device_index_inside(every, 1), 1);
  SandboxCommand open;
  apply_confinement(every, open);
  EXPECT_EQ(open.extra_env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_TRUE(open.view.gpu_device_node.empty());
  EXPECT_FALSE(confine_to(DeviceInfo{}, gpus()).active()) << "no UUID, nothing to name the GPU by";
}

// The harness's command line and job as a confined job sends them: a fake harness records what
// it was given (its environment and the job file) and exits without a result.
TEST_F(GpuConfinementTest, AJobOnGpuOneReachesTheHarnessAsDeviceZeroWithItsUuid) {
  const fs::path fake = root_ / "fake-harness.sh";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "dir=$(dirname \"$2\")\n"
                         "echo \"CVD=$CUDA_VISIBLE_DEVICES\" > \"$dir/seen\"\n"
                         "cat \"$2\" >> \"$dir/seen\"\n";
  fs::permissions(fake, fs::perms::owner_all);
  HarnessJob job;
  job.kernel = "saxpy";
  job.device = 1;
  HarnessLimits limits;
  limits.sandbox = SandboxKind::process;
  limits.timeout_s = 30;
  limits.gpu.uuid = "GPU-bbbbbbbb-0000-1111-2222-333333333333";
  limits.gpu.device_node = "/dev/nvidia1";
  const fs::path dir = root_ / "job";
  HarnessRun run = run_harness_job(fake.string(), job, dir, limits);
  EXPECT_EQ(run.result_error, "no result file");
  std::ifstream in(dir / "seen");
  std::stringstream seen;
  seen << in.rdbuf();
  EXPECT_NE(seen.str().find("CVD=GPU-bbbbbbbb-0000-1111-2222-333333333333\n"), std::string::npos) << seen.str();
  EXPECT_NE(seen.str().find("\"device\": 0"), std::string::npos) << seen.str();
}

}  // namespace
}  // namespace kb::profiler
