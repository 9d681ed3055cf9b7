// Advisory findings: what the builtin tuner measured by probing a block size the launcher's
// callers pass (`void launch_gather(..., int threads = 64)`). No PR can change a caller's
// choice, so such a variant is never a winner; its verified speedup is reported instead, for a
// person to act on at the call sites.
#pragma once

#include <string>
#include <vector>

#include "core/variant.h"
#include "search/types/search_types.h"

namespace kb::search {

// Whether `variant` is an advisory probe (its source carries the probe marker of
// cuda_source/knobs/literal_knobs.h): never to be published.
bool is_advisory(const Variant& variant);

// The best accepted probe of each caller-chosen argument in `tree`, fastest first.
std::vector<AdvisoryFinding> collect_advisory_findings(const std::vector<CandidateRecord>& tree);

// "advisory: launch_gather's caller-chosen `threads` (64 in this config) measured 2.90x faster at
// 256 (verified); change it at the call sites"
std::string advisory_text(const AdvisoryFinding& finding);

}  // namespace kb::search
