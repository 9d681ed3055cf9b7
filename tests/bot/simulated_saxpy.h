// The simulated GPU's view of the saxpy fixture (tests/bot/data/saxpy_result.json, whose original
// is examples/src/saxpy.cu): a text without the winner's saxpy_vec4_kernel is the original and
// takes 100 us; a text with it (the winner's translation unit, or the PR's spliced file) behaves
// as the test says. So a test decides what the PR's text does when it is re-verified.
#pragma once

#include "config/config.h"
#include "search/types/search_types.h"
#include "tests/search/simulated_evaluator.h"

namespace kb::testing {

// 100 / 64.5 us: the 1.55x the fixture's search found.
inline SimBehaviour saxpy_winner_as_searched() { return SimBehaviour{64.5, false, false, false}; }

SimCost saxpy_cost(SimBehaviour winner);

// `result`'s winner spliced into its original, as publish splices it, re-verified by bot/change/reverify
// on a simulated GPU with `cost` and recorded in `result` as `by` would have saved it. `config`
// holds the result's kernel (examples/kernelbot.toml's, for the fixture).
void add_simulated_reverification(const config::Config& config, search::SearchResult& result,
                                  const SimCost& cost = saxpy_cost(saxpy_winner_as_searched()),
                                  const std::string& by = "kernelbot run");

}  // namespace kb::testing
