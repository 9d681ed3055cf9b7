// Which verified candidates seed the next round: the fastest, but no more than a few per idea
// family, so one line of ideas cannot crowd out every other (the diversity rule).
#pragma once

#include <cstdint>
#include <vector>

#include "search/types/search_types.h"

namespace kb::search {

// The ids of up to `count` seeds among `candidates` (the baseline included), best speedup first.
// Only correct candidates qualify (verdict accepted or not_faster). At most `max_per_family` come
// from one idea family, even when that leaves slots empty (the original, family "original", is
// usually there to take one). Ties keep the earlier candidate; a variant reached twice counts once.
std::vector<const CandidateRecord*> select_seeds(const std::vector<CandidateRecord>& candidates, int64_t count,
                                                 int64_t max_per_family);

}  // namespace kb::search
