#include "profiler/judge/server/traced_call.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/harness_kernels.h"
#include "profiler/judge/tracing/call_order.h"

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

// Where the record ran, as a reason says it: " on the legacy default stream (CUPTI stream 7), not
// the stream argument 'stream' (CUPTI stream 13)," or " (on the stream argument 'stream')".
struct CallStreams {
  const LauncherStream& stream;
  StreamChoice choice;
  uint32_t expected;  // the CUPTI id of the stream the launcher was given (the brackets' stream)
  uint32_t legacy;    // the CUPTI id of the legacy default stream
};

std::string where(const ActivityRecord& r, const CallStreams& s) {
  const std::string ran_on = r.stream == s.legacy && s.stream.given()
                                 ? "the legacy default stream (CUPTI stream " + std::to_string(r.stream) + ")"
                                 : "CUPTI stream " + std::to_string(r.stream);
  if (!s.stream.given()) return " on " + ran_on + ",";
  return r.stream == s.expected ? " (on " + s.stream.describe(s.choice) + ")"
                                : " on " + ran_on + ", not " + s.stream.describe(s.choice) + " (CUPTI stream " +
                                      std::to_string(s.expected) + "),";
}

std::string describe_finding(const CallOrderFinding& f, const CallStreams& s) {
  const std::string what = describe_record(f.record) + where(f.record, s);
  const std::string queue = s.stream.describe(s.choice);
  if (f.kind == CallOrderFinding::Kind::ended_late)
    return what + " ended " + format_number(f.by_us) + " us after the work queued on " + queue + " was complete";
  return what + " started " + format_number(f.by_us) + " us before the work queued on " + queue +
         " ahead of the call was complete";
}

// The host-clock rule, for when CUPTI dropped a bracket: work that ended more than
// kLateWorkSlackNs after the host saw the default stream complete.
std::string late_by_host_clock(const std::vector<ActivityRecord>& records, uint64_t complete, const CallStreams& s) {
  const ActivityRecord* latest = nullptr;
  for (const auto& r : records)
    if (r.end > complete + kLateWorkSlackNs && (!latest || r.end > latest->end)) latest = &r;
  if (!latest) return "";
  CallOrderFinding f{CallOrderFinding::Kind::ended_late, *latest, static_cast<double>(latest->end - complete) / 1e3};
  return describe_finding(f, s);
}

}  // namespace

std::string run_and_check_streams(EntryFn fn, void** args, Who who, ActivityMonitor* tracing,
                                  const LauncherStream& stream, StreamChoice choice) {
  cuda_check(cudaDeviceSynchronize(), "synchronizing before a verification call");
  if (!tracing) {
    call_variant(fn, args, who);
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
    return "";
  }
  ActivityMonitor& monitor = *tracing;
  // The caller's stream: the brackets and the completion event go there (launcher_stream.h).
  const cudaStream_t caller = stream.order_stream(choice);
  static std::optional<uint32_t> legacy_id;
  if (!legacy_id) legacy_id = monitor.stream_id_of(cudaStreamLegacy);
  // Probed before the call's trace.
  const CallStreams streams{stream, choice, stream.given() ? stream.cupti_id(choice) : *legacy_id, *legacy_id};
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
  cuda_check(launch_call_gate(gate.open, gate.timed_out, kCallGateTimeoutNs, caller), "launching the call gate");
  call_variant(fn, args, who);
  {
    // A sticky error the call's work raised surfaces at this launch: the variant's, not the judge's.
    CallScope scope(who, "");
    check_variant_sync(launch_call_marker(caller), who, "launching the call marker");
  }
  std::this_thread::sleep_for(std::chrono::microseconds(kCallGateHoldUs));
  set_flag(gate.open, 1);
  {
    CallScope scope(who, "");
    check_variant_sync(cudaEventRecord(done, caller), who, "recording the completion event");
    check_variant_sync(cudaEventSynchronize(done), who, "");
  }
  const uint64_t complete = monitor.timestamp();
  {
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
  }
  const auto records = records_since(monitor.take(), begin);
  const CallOrderVerdict order = judge_call_order(records, streams.expected, kCallGateKernelName,
                                                  kCallMarkerKernelName);
  if (order.judged) return order.finding ? describe_finding(*order.finding, streams) : "";
  return late_by_host_clock(records, complete, streams);
}

}  // namespace kb::judge
