// Which CUDA devices this machine has. The one place the bot process itself touches the CUDA
// runtime: candidate code never runs in the bot's process.
#pragma once

#include <string>
#include <vector>

#include "core/errors.h"
#include "core/result_types.h"

namespace kb::profiler {

// No usable CUDA device (no GPU, no driver, or a driver too old): exit code 1 with this message.
struct NoDeviceError : Error {
  using Error::Error;
};

// The devices visible to this process (CUDA_VISIBLE_DEVICES applies). Measured fields
// (bandwidth, FLOP rate) are left at 0 here. Throws NoDeviceError when there is none.
std::vector<DeviceInfo> query_devices();

// Why there is no usable device, for the error: no driver at all (`driver_version` 0), a driver
// older than the runtime kernelbot was built with, or a driver that sees no GPU. `error` is what
// cudaGetDeviceCount returned (a cudaError_t), `count` the devices it found.
std::string describe_no_device(int error, int count, int driver_version, int runtime_version);

}  // namespace kb::profiler
