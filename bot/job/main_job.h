// `kernelbot run`: for each target kernel, search, then publish the verified winner, while the
// next kernel is searched (bot/job/publish_queue.h). One kernel's failure is reported and the
// others still run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bot/job/kernel_outcome.h"
#include "bot/job/kernel_search.h"
#include "bot/job/shard.h"
#include "bot/publish/publish.h"
#include "config/config.h"

namespace kb::bot {

struct MainJobOptions {
  std::string kernel;  // empty: every [[kernel]]
  bool dry_run = false;
  KernelSearchOptions search;
  std::optional<Shard> shard;  // only this shard's part of the targets (bot/job/sweep_shard.h)
  bool no_publish = false;     // search into `out` for `kernelbot publish`: no git, no GitHub, no token
  std::filesystem::path out;
};

// The row of a kernel whose search result went through publish_result. When the PR's text was
// re-verified and passed, speedup and times are that measurement's (what the PR says).
KernelOutcome published_outcome(const std::string& kernel, const search::SearchResult& result,
                                const PublishOutcome& published, bool dry_run);

std::vector<KernelOutcome> run_main_job(const config::Config& config, const MainJobOptions& options);

}  // namespace kb::bot
