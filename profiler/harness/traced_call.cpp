#include "profiler/harness/traced_call.h"

#include <cuda_runtime_api.h>

#include <memory>

#include "profiler/harness/cuda_check.h"
#include "profiler/harness/output_comparator.h"

namespace kb::harness {

std::string run_and_check_streams(EntryFn fn, void** args, Who who, ActivityMonitor* tracing,
                                  const LauncherStream& stream) {
  cuda_check(cudaDeviceSynchronize(), "synchronizing before a verification call");
  if (!tracing) {
    call_variant(fn, args, who);
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
    return "";
  }
  ActivityMonitor& monitor = *tracing;
  const uint32_t expected = stream.given() ? stream.cupti_id() : 0;  // probed before the call's trace
  monitor.take();  // discard the server's own work
  cudaEvent_t done;
  cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "creating an event");
  std::unique_ptr<CUevent_st, void (*)(cudaEvent_t)> guard(done, [](cudaEvent_t e) { cudaEventDestroy(e); });
  const uint64_t begin = monitor.timestamp();
  call_variant(fn, args, who);
  {
    CallScope scope(who, "");
    check_variant_sync(cudaEventRecord(done, cudaStreamLegacy), who, "recording the completion event");
    check_variant_sync(cudaEventSynchronize(done), who, "");
  }
  const uint64_t complete = monitor.timestamp();
  {
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
  }
  const auto records = records_since(monitor.take(), begin);
  const ActivityRecord* latest = nullptr;
  for (const auto& r : records)
    if (r.end > complete + kLateWorkSlackNs && (!latest || r.end > latest->end)) latest = &r;
  if (!latest) return "";
  const double late_us = static_cast<double>(latest->end - complete) / 1e3;
  const std::string what = latest->kind == ActivityRecord::Kind::kernel ? "kernel " + latest->name : latest->name;
  if (!stream.given())
    return what + " ended " + format_number(late_us) + " us after the launcher's work was complete on the default stream";
  const std::string where = latest->stream == expected
                                ? " (on " + stream.describe() + ")"
                                : " on CUPTI stream " + std::to_string(latest->stream) + ", not " + stream.describe() +
                                      " (CUPTI stream " + std::to_string(expected) + "),";
  return what + where + " ended " + format_number(late_us) + " us after the work queued on " + stream.describe() +
         " was complete";
}

}  // namespace kb::harness
