// The search times candidates without hardware counters (CUPTI's replay would disturb the timing);
// the PR shows counters before and after, so the accepted winner gets one more run, a metrics run
// of the winner alone (the search verified the winner; nothing is verified or timed again here).
// The original's counters are those of its measurement at the search's start, taken the same way
// at the same size set; only when that measurement has none is the original counted again.
// Part of the search, so its result is whole.
#pragma once

#include "config/config.h"
#include "core/result_types.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::search {

// Fills the winner's eval.baseline_metrics (result.baseline_profile's, or counted again) and
// eval.candidate_metrics from `evaluator`, with the original already compiled as `baseline`. Nothing to do without an accepted winner. When the
// run fails, the winner's candidate_metrics.status says why (the PR then says so).
void collect_winner_metrics(const config::KernelSpec& spec, Evaluator& evaluator, const CompiledVariant& baseline,
                            SearchResult& result);

}  // namespace kb::search
