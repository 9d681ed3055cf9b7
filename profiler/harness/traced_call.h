// One launcher call waited for as a caller would (an event on the legacy default stream, which
// also waits for the blocking stream a launcher's stream argument gets), traced with CUPTI: any of
// the call's device work that ends after that event completed is work the caller was never told
// to wait for (a side stream). Runs in a variant server.
#pragma once

#include <string>

#include "profiler/harness/activity_monitor.h"
#include "profiler/harness/launcher_stream.h"
#include "profiler/harness/variant_call.h"

namespace kb::harness {

// Slack for clock conversion between CUPTI's GPU timestamps and the host's: work that ends later
// than this after the default stream reported completion is flagged.
inline constexpr uint64_t kLateWorkSlackNs = 20'000;

// Empty when every activity of the call ended in time (or `tracing` is null: another tool holds
// CUPTI, the call only runs and waits); otherwise what ended late and by how much. Throws
// VariantFault.
// `stream` is the launcher's (its stream argument, or the default stream): the note names it and
// the stream the late work ran on.
std::string run_and_check_streams(EntryFn fn, void** args, Who who, ActivityMonitor* tracing,
                                  const LauncherStream& stream);

}  // namespace kb::harness
