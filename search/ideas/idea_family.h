// The families optimization ideas fall into (after the published kernel-search work): the
// seed selection's diversity rule counts seeds per family, and prompts list them to the model.
// They are memory_access, async_latency, precision, control_flow, parallelism, fusion,
// compile_flags, then the engine's own: crossover (two seeds merged) and original (the baseline).
#pragma once

#include <string>

namespace kb::search {

// One line per family describing it, for prompts.
std::string describe_idea_families();

// A model's free-form family ("Memory Access", "occupancy", "vectorization") mapped to a known
// family; "other" when nothing fits.
std::string normalize_family(const std::string& text);

}  // namespace kb::search
