// The reply to `@kernelbot explain`: how the search reached the PR's change (the ideas from the
// original to the winner, each with its verdict and speedup), what else it tried, and the evidence
// for the PR's own text (its re-verification's numbers, GPU and date), all from the archived
// result, so that it costs no GPU time and says only what was measured.
#pragma once

#include <string>

#include "search/types/search_types.h"

namespace kb::bot {

std::string explain_text(const search::SearchResult& result);

}  // namespace kb::bot

namespace kb::bot {

// The PR file's measured times, one row per size set, as a markdown table ("" when untimed).
std::string reverification_table(const search::Reverification& r);

}  // namespace kb::bot
