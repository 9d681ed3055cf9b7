// The last step of a sweep, the only one that holds a token: merge the shards' archives into the
// archive that persists between nights, then publish one PR per kernel (through publish_result,
// so with `run`'s caps, project check and PR deduplication) from the best result any shard saved
// for it, after checking that the original it measured is still the base branch's.
#pragma once

#include <filesystem>
#include <vector>

#include "bot/job/main_job.h"
#include "bot/job/sweep_bundle.h"

namespace kb::bot {

class Forge;

// Shards missing from `bundles` (by the plan they share) become failed rows naming the kernels
// nobody searched; bundles with different plans are refused (UsageError): they were not one sweep.
// `archive` empty: the archives are not merged.
std::vector<KernelOutcome> publish_sweep(const config::Config& config, const std::vector<SweepBundle>& bundles,
                                         const std::filesystem::path& archive, Forge& forge);

}  // namespace kb::bot
