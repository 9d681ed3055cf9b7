// One kernel's row in the summary of a run: what `kernelbot run`, a sweep's shard and `kernelbot
// publish` report per kernel. Its own header so that every one of them can name the row without
// including another's job (a shard's search must not include the main job that calls it).
#pragma once

#include <string>
#include <vector>

namespace kb::bot {

// One row of the summary.
struct KernelOutcome {
  std::string kernel;
  double baseline_us = 0;  // at the first size set
  double best_us = 0;
  double speedup = 0;
  // "PR opened", "PR updated", "dry-run PR", "no faster kernel", "no PR", "PR vetoed" (the PR's
  // text failed its re-verification: a result, exit 0), "refused", "failed" (exit 1); what people
  // asked for (exit 0): "ignored", "declined before", "left to a person", "base moved"
  std::string verdict;
  std::string pr;  // URL or PR.md path
  std::string note;
  bool failed = false;
  // Verified speedups no PR can deliver (search/types/advisory_findings.h), in words.
  std::vector<std::string> advisories;
};

}  // namespace kb::bot
