#include "profiler/judge/traced_call.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "profiler/judge/call_order.h"
#include "profiler/judge/cuda_check.h"
#include "profiler/judge/harness_kernels.h"
#include "profiler/judge/output_comparator.h"

namespace kb::judge {
namespace {

// The gate's two flags in host-mapped memory, one pair per process (its device pointer is the
// host pointer: unified addressing). Never freed: the process ends with its server.
struct GateFlags {
  volatile int32_t* open = nullptr;
  volatile int32_t* timed_out = nullptr;
};

GateFlags gate_flags() {
  static const GateFlags flags = [] {
    void* memory = nullptr;
    cuda_check(cudaHostAlloc(&memory, 2 * sizeof(int32_t), cudaHostAllocMapped), "allocating the call gate's flags");
    auto* p = static_cast<volatile int32_t*>(memory);
    p[0] = 1;
    p[1] = 0;
    return GateFlags{p, p + 1};
  }();
  return flags;
}

void set_flag(volatile int32_t* flag, int32_t value) {
  *flag = value;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Opens the gate however the call ends: a call that throws (a crash, a fault) must not leave the
// server's next work waiting for the gate's timeout.
struct GateOpener {
  volatile int32_t* open;
  ~GateOpener() { set_flag(open, 1); }
};

std::string describe_record(const ActivityRecord& r) {
  return r.kind == ActivityRecord::Kind::kernel ? "kernel " + r.name : r.name;
}

// " on CUPTI stream 9, not the stream argument 'stream' (CUPTI stream 13)," or " (on ...)".
std::string where(const ActivityRecord& r, uint32_t expected, const LauncherStream& stream) {
  if (!stream.given()) return " on CUPTI stream " + std::to_string(r.stream) + ",";
  return r.stream == expected ? " (on " + stream.describe() + ")"
                              : " on CUPTI stream " + std::to_string(r.stream) + ", not " + stream.describe() +
                                    " (CUPTI stream " + std::to_string(expected) + "),";
}

std::string describe_finding(const CallOrderFinding& f, uint32_t expected, const LauncherStream& stream) {
  const std::string what = describe_record(f.record) + where(f.record, expected, stream);
  const std::string queue = stream.given() ? stream.describe() : "the default stream";
  if (f.kind == CallOrderFinding::Kind::ended_late)
    return what + " ended " + format_number(f.by_us) + " us after the work queued on " + queue + " was complete";
  return what + " started " + format_number(f.by_us) + " us before the work queued on " + queue +
         " ahead of the call was complete";
}

// The host-clock rule, for when CUPTI dropped a bracket: work that ended more than
// kLateWorkSlackNs after the host saw the default stream complete.
std::string late_by_host_clock(const std::vector<ActivityRecord>& records, uint64_t complete, uint32_t expected,
                               const LauncherStream& stream) {
  const ActivityRecord* latest = nullptr;
  for (const auto& r : records)
    if (r.end > complete + kLateWorkSlackNs && (!latest || r.end > latest->end)) latest = &r;
  if (!latest) return "";
  CallOrderFinding f{CallOrderFinding::Kind::ended_late, *latest, static_cast<double>(latest->end - complete) / 1e3};
  return describe_finding(f, expected, stream);
}

}  // namespace

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
  static std::optional<uint32_t> legacy_id;
  if (!legacy_id) legacy_id = monitor.stream_id_of(cudaStreamLegacy);
  const GateFlags gate = gate_flags();
  monitor.take();  // discard the server's own work
  cudaEvent_t done;
  cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "creating an event");
  std::unique_ptr<CUevent_st, void (*)(cudaEvent_t)> guard(done, [](cudaEvent_t e) { cudaEventDestroy(e); });
  const uint64_t begin = monitor.timestamp();
  // The gate holds everything ordered with the caller's stream until after the call returned;
  // whatever the call queued elsewhere runs meanwhile and is seen starting before the gate ends.
  set_flag(gate.open, 0);
  set_flag(gate.timed_out, 0);
  GateOpener opener{gate.open};
  cuda_check(launch_call_gate(gate.open, gate.timed_out, kCallGateTimeoutNs, cudaStreamLegacy),
             "launching the call gate");
  call_variant(fn, args, who);
  {
    // A sticky error the call's work raised surfaces at this launch: the variant's, not the judge's.
    CallScope scope(who, "");
    check_variant_sync(launch_call_marker(cudaStreamLegacy), who, "launching the call marker");
  }
  std::this_thread::sleep_for(std::chrono::microseconds(kCallGateHoldUs));
  set_flag(gate.open, 1);
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
  const CallOrderVerdict order = judge_call_order(records, *legacy_id, kCallGateKernelName, kCallMarkerKernelName);
  if (order.judged) return order.finding ? describe_finding(*order.finding, expected, stream) : "";
  return late_by_host_clock(records, complete, expected, stream);
}

}  // namespace kb::judge
