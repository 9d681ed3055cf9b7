// The SM clock through NVML, to drop timing samples taken while the GPU throttled. NVML is
// loaded with dlopen: the harness still works (and says so) where libnvidia-ml is missing, and no
// NVML header or stub is needed at build time.
#pragma once

#include <string>

namespace kb::judge {

class ClockMonitor {
 public:
  // Opens NVML for the CUDA device `cuda_device` (matched by PCI bus id).
  explicit ClockMonitor(int cuda_device);
  ~ClockMonitor();
  ClockMonitor(const ClockMonitor&) = delete;
  ClockMonitor& operator=(const ClockMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  // Why NVML is not available ("libnvidia-ml.so.1 not found", ...); empty when it is.
  const std::string& unavailable_reason() const { return reason_; }
  double max_sm_mhz() const { return max_mhz_; }
  double current_sm_mhz() const;       // 0 when unavailable or on error
  std::string driver_version() const;  // "580.159.04"; empty when unavailable

 private:
  void* library_ = nullptr;
  bool initialized_ = false;
  void* device_ = nullptr;
  void* get_clock_ = nullptr;
  double max_mhz_ = 0;
  std::string reason_;
};

}  // namespace kb::judge
