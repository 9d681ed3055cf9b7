// Hardware counters of one launcher call through CUPTI's Range Profiler (auto range: one range
// per kernel; kernel replay: CUPTI replays each kernel, restoring memory, until every metric is
// collected) and the Profiler Host API to evaluate them. Run apart from timing: replay changes
// the timing of everything around it.
#pragma once

#include "core/result_types.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/tracing/metrics_aggregate.h"

namespace kb::judge {

// Collects metrics of one call of `fn`; status "ok" or why not (insufficient privileges with
// the way to grant them, unsupported device...). Throws VariantFault when the variant faults.
KernelMetrics collect_metrics(EntryFn fn, ArgSet& args, Who who, int device);

}  // namespace kb::judge
