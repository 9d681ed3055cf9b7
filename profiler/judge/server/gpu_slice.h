// A slice of the GPU: a CUDA green context holding a few of the device's SMs, and a stream of
// its own. The variant server makes one call there (Op::slice_call) for the slice pass
// (slice_pass.h): a kernel that assumes every one of its blocks runs at once (a grid-wide
// barrier without a cooperative launch, a grid sized for a fixed SM count) deadlocks or fails on
// a smaller GPU, under MPS, or beside the caller's other work; on a slice it does so in the judge.
//
// The driver's green-context API is reached through cudaGetDriverEntryPointByVersion, so the
// harness still links no libcuda (it starts and says "no CUDA device" without one).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/wire/server_wire.h"

namespace kb::judge {

class GpuSlice {
 public:
  // A green context of at least `min_sms` SMs of `device` (the driver rounds up to its
  // granularity), with a non-blocking stream and a default stream. nullptr with `*why` set when
  // this driver or GPU offers no green contexts.
  static std::unique_ptr<GpuSlice> create(int device, unsigned min_sms, std::string* why);
  ~GpuSlice();
  GpuSlice(const GpuSlice&) = delete;
  GpuSlice& operator=(const GpuSlice&) = delete;

  unsigned sm_count() const { return sms_; }
  unsigned device_sm_count() const { return device_sms_; }
  CUcontext context() const { return context_; }
  cudaStream_t stream() const { return stream_; }

 private:
  GpuSlice() = default;
  CUgreenCtx green_ = nullptr;
  CUcontext context_ = nullptr;
  cudaStream_t stream_ = nullptr;
  unsigned sms_ = 0, device_sms_ = 0;
};

// One call on `slot` with the slice's context current on this thread, its stream given to every
// stream argument (a launcher without one launches on the slice's default stream), then waited
// for there. The thread's own context is current again afterwards, whatever the launcher did;
// the slot's stream arguments are the caller's to hand back (LauncherStream::bind).
// Replies ok with value = the slice's SMs; throws VariantFault when the call fails.
Reply call_on_slice(EntryFn fn, Who who, ArgSet& slot, const GpuSlice& slice);

}  // namespace kb::judge
