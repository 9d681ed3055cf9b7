// One runner's part of a sweep: which kernels are this shard's, and, with `--no-publish`, searching
// them into a shard directory (bot/job/sweep_bundle.h) without git, GitHub or a token, so a runner that
// executes model-written code never holds credentials that can push. `kernelbot publish` does the rest.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "bot/job/kernel_outcome.h"
#include "bot/job/shard.h"
#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::bot {

struct ShardedTargets {
  ShardPlan plan;
  std::vector<const config::KernelSpec*> mine;  // this shard's kernels, in config order
};

// Plans the split of `targets` with the GPU times in `archive` (an empty path: by count) and
// keeps shard `shard`'s part.
ShardedTargets shard_targets(const std::vector<const config::KernelSpec*>& targets, const Shard& shard,
                             const std::filesystem::path& archive);

using SearchFn = std::function<search::SearchResult(const config::KernelSpec&)>;

// Searches each of `targets.mine` with `search` and writes the shard directory `out`: each
// result with its change (when the winner deserves a PR and splices into the source), the
// archive rows this run added (`archive` empty: none), and the manifest. A change is re-verified
// on `reverifier` (bot/change/reverify.h; `by` names this job in the record) before its result is saved
// with the record: `kernelbot publish` runs on a machine without a GPU and publishes only what a
// shard re-verified. One kernel's failure is recorded and the others still run; a missing GPU
// (NoDeviceError) ends the shard.
std::vector<KernelOutcome> search_into_bundle(const config::Config& config, const ShardedTargets& targets,
                                              const Shard& shard, const std::filesystem::path& out,
                                              const std::filesystem::path& archive, const SearchFn& search,
                                              Evaluator& reverifier, const std::string& by);

}  // namespace kb::bot
