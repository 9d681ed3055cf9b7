// One launcher call waited for as a caller would (an event on the caller's stream: the stream the
// launcher was given, else the legacy default stream), traced with CUPTI and bracketed on that
// stream by a gate and a marker (call_order.h): device work of the call that started before the
// gate opened, or ended after the marker started, is work the caller's stream is not ordered with
// (a side stream, or the legacy default stream beside a non-blocking stream argument), however
// short. Runs in a variant server.
#pragma once

#include <string>

#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/server/launcher_stream.h"
#include "profiler/judge/tracing/activity_monitor.h"

namespace kb::judge {

// When CUPTI dropped a bracket, the host clock decides: work that ends later than this (slack for
// converting between CUPTI's GPU timestamps and the host's) after the default stream reported
// completion is flagged.
inline constexpr uint64_t kLateWorkSlackNs = 20'000;
// The gate stays closed this long after the call returned, so that work the call queued on an
// unordered stream has started on the GPU before it opens (launch latency is microseconds)...
inline constexpr int kCallGateHoldUs = 200;
// ...and opens by itself after this much GPU time: a launcher that synchronizes inside the call
// waits for the gate that long (once per verification call), then goes on. Its work queued after
// that is still judged by the marker.
inline constexpr uint64_t kCallGateTimeoutNs = 20'000'000;

// Empty when every activity of the call kept the order of the caller's stream (or `tracing` is
// null: another tool holds CUPTI, the call only runs and waits); otherwise what ran out of order
// and by how much. Throws VariantFault.
// `stream` is the launcher's (its stream argument, or the default stream) and `choice` which
// stream the launcher was given for this call: the note names it and the stream the late work ran on.
std::string run_and_check_streams(EntryFn fn, void** args, Who who, ActivityMonitor* tracing,
                                  const LauncherStream& stream, StreamChoice choice = StreamChoice::launcher_stream);

}  // namespace kb::judge
