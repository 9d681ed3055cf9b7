// Where each configured kernel stands, from what kernelbot keeps (the archived results under
// .kernelbot/results/, the archive's declined PRs and ignore requests) and, when a GitHub client
// is given, the forge's open PRs: one view printed by `kernelbot status` and rendered as the
// repository's dashboard issue (bot/publish/dashboard.h). No GPU is needed to build it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "search/types/search_types.h"

namespace kb::bot {

class GitHubClient;

struct KernelStatus {
  std::string kernel;
  // "PR open", "winner, no PR", "no faster kernel", "not searched yet", "ignored", "declined before",
  // "cannot be targeted"
  std::string state;
  double speedup = 0;    // the last result's winner, as re-verified when it was; 0: none
  std::string verified;  // the PR text's re-verification: "passed", "failed: <why>", "" when none
  std::string date;      // when the last result was measured (ISO 8601, UTC); "" when never
  std::string gpu;
  int64_t pr_number = 0;  // the open PR of kernelbot/<kernel>; 0: none (or the forge was not asked)
  std::string pr_url;
  std::string note;  // why it is ignored or declined, or what to configure
  search::BudgetUse budget;
};

struct StatusView {
  std::vector<KernelStatus> kernels;  // in the config's order
  search::BudgetUse spent;            // summed over the kernels' last results
  bool forge_asked = false;           // false: the PR columns are unknown, not empty
  std::string forge_note;             // why the forge was not asked, or what it said
};

// `client` null: the archive only. A forge that fails is noted in forge_note, not thrown.
StatusView gather_status(const config::Config& config, GitHubClient* client);

}  // namespace kb::bot
