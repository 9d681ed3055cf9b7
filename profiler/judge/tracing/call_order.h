// Whether a launcher call's device work kept the order of the caller's stream, judged from the
// CUPTI records of one traced verification call and its two brackets (traced_call.h):
//   - a gate kernel queued on the caller's stream (the stream the launcher was given, else the
//     legacy default stream) just before the call and held closed
//     until after the call returned: work that starts before the gate ended did not wait for
//     the work the caller queued before the call (a stream that is not ordered with the caller's);
//   - a marker kernel queued there just after the call returned: it starts the moment everything
//     the caller's stream waits for is done, so work that ends after the marker started is work
//     the caller (and every timing event on that stream) never waited for.
// Both rules compare GPU timestamps of one clock, so, unlike a host clock read after a
// synchronize, no slack beyond the timestamps' granularity is needed, and a short kernel on a
// hidden stream is caught as surely as a long one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/judge/tracing/activity_monitor.h"

namespace kb::judge {

struct CallOrderFinding {
  enum class Kind { started_early, ended_late } kind = Kind::ended_late;
  ActivityRecord record;
  double by_us = 0;  // how long before the gate's end it started / after the marker's start it ended
};

// Timestamps closer than this are not told apart (in-order kernels of one stream may be reported
// that close).
inline constexpr uint64_t kCallOrderToleranceNs = 1'000;

// The brackets are the kernels named `gate_name` / `marker_name` on `bracket_stream` (the caller's). Should the
// call queue kernels of those names itself, the gate that ended last and the marker that started
// first are taken: a forged bracket can only make more of the call's work look out of order.
// Every other record is the call's. `judged` is false when a bracket is missing from the records
// (CUPTI dropped it: nothing can be judged this way); `finding` is empty when the call kept the
// order, else the work that escaped furthest (ending late before starting early).
struct CallOrderVerdict {
  bool judged = false;  // both brackets were found
  std::optional<CallOrderFinding> finding;
};
CallOrderVerdict judge_call_order(const std::vector<ActivityRecord>& records, uint32_t bracket_stream,
                                  const std::string& gate_name, const std::string& marker_name);

}  // namespace kb::judge
