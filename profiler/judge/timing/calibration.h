// `kernelbot-harness --calibrate`: the device's two ceilings, measured rather than read off a
// datasheet. Copy bandwidth is a large device-to-device copy counting bytes read plus bytes
// written; the FP32 rate is an FFMA kernel with independent chains filling every SM. The bot
// caches the result per device and puts the numbers in each job for the roofline floor.
#pragma once

#include "core/result_types.h"

namespace kb::judge {

// The device's facts (name, compute capability, SMs, L2, memory, driver, runtime) plus the two
// measured ceilings. Throws HarnessError.
DeviceInfo calibrate_device(int device);

// The device's facts without measurements (for EvalResult.device).
DeviceInfo describe_device(int device);

}  // namespace kb::judge
