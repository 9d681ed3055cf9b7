// What "no CUDA device" says, for each way of having none: the fix differs (install a driver,
// update it, find the GPU), so the message must tell them apart.
#include <gtest/gtest.h>

#include "profiler/device_query.h"

using kb::profiler::describe_no_device;

namespace {
// cudaError_t's values (driver_types.h), spelled here: this suite is built without the toolkit's headers.
constexpr int cudaSuccess = 0, cudaErrorInsufficientDriver = 35, cudaErrorDevicesUnavailable = 46,
              cudaErrorNoDevice = 100;
}  // namespace

TEST(NoDeviceMessage, NoDriverAtAll) {
  // The runtime reports "insufficient driver" when libcuda cannot be loaded: the version says which.
  const std::string m = describe_no_device(cudaErrorInsufficientDriver, 0, 0, 13000);
  EXPECT_NE(m.find("no NVIDIA driver is installed"), std::string::npos) << m;
}

TEST(NoDeviceMessage, ADriverOlderThanTheRuntime) {
  const std::string m = describe_no_device(cudaErrorInsufficientDriver, 0, 12040, 13000);
  EXPECT_NE(m.find("supports CUDA up to 12.4, older than the CUDA 13.0 runtime"), std::string::npos) << m;
  EXPECT_NE(m.find("update the driver"), std::string::npos) << m;
}

TEST(NoDeviceMessage, ADriverThatSeesNoGpu) {
  const std::string m = describe_no_device(cudaErrorNoDevice, 0, 13000, 13000);
  EXPECT_NE(m.find("sees no GPU"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << m;
  EXPECT_EQ(describe_no_device(cudaSuccess, 0, 13000, 13000), m);
}

TEST(NoDeviceMessage, AnythingElseKeepsTheRuntimesWords) {
  const std::string m = describe_no_device(cudaErrorDevicesUnavailable, 0, 13000, 13000);
  EXPECT_NE(m.find("busy or unavailable"), std::string::npos) << m;  // the runtime's own text
  EXPECT_NE(m.find("(driver CUDA 13.0)"), std::string::npos) << m;
}
