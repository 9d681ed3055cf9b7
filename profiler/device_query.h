// Which CUDA devices this machine has. The one place the bot process itself touches the CUDA
// runtime: candidate code never runs in the bot's process.
#pragma once

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

}  // namespace kb::profiler
