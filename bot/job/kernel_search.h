// Runs the search for one kernel the way every command does it: the proposer from config (or
// an override), one GPU evaluator per visible device, the archive. Shared by `search` and `run`.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::bot {

// Command-line overrides of [search].
struct KernelSearchOptions {
  std::string proposer;  // "" = [search].proposer
  std::string replay;    // recorded replies file (implies the replay proposer)
  std::string record;    // record model replies to this file
  std::string archive;   // "" = [search].archive
  bool no_archive = false;
  // The one CUDA device to search on (`kernelbot run` on several GPUs gives each kernel one);
  // unset: every visible device, candidates spread over them.
  std::optional<int> device;
  // Check the proposer before any GPU work (Proposer::preflight: one request to a model). Off
  // where check_search_setup already did it for the run.
  bool preflight = true;
};

// The cheap preconditions of searching `kernels`, before any GPU is looked for: each kernel's
// proposer can be made (a model named, a replay file there), and the model's endpoint answers one
// small request (once: the kernels share it). Throws UsageError for what the user must fix,
// kb::Error for a service that fails.
void check_search_setup(const config::Config& config, const std::vector<const config::KernelSpec*>& kernels,
                        const KernelSearchOptions& options);

// Throws UsageError for a bad proposer setup or a model endpoint that refuses the check (before any
// GPU work), NoDeviceError without a GPU.
search::SearchResult search_kernel(const config::Config& config, const config::KernelSpec& spec,
                                   const KernelSearchOptions& options);

}  // namespace kb::bot
