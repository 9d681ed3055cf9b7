// What the commands in PR comments do in `kernelbot run` (bot/pr_comments/pr_conversation.h asks, this
// answers): rebench and rebase measure through the run's Evaluator and publish through its forge
// as a search's winner is published (bot/publish/publish.h), explain reads the archived result, ignore
// and unignore write the archive's ignored_kernels table (search/archive/ignored_kernels.h), which the
// run honours until the kernel's source changes.
#pragma once

#include <string>
#include <vector>

#include "bot/forge/forge.h"
#include "bot/pr_comments/pr_conversation.h"
#include "config/config.h"
#include "profiler/evaluate/evaluator.h"

namespace kb::bot {

class RunCommandActions : public PrCommandActions {
 public:
  // `evaluator` null: no GPU in this job, and rebench and rebase say so. `dry_run`: nothing is
  // written, pushed or measured; the replies say what would be done.
  RunCommandActions(const config::Config& config, Forge& forge, GitHubClient& client, Evaluator* evaluator,
                    bool dry_run)
      : config_(config), forge_(forge), client_(client), evaluator_(evaluator), dry_run_(dry_run) {}

  std::string rebench(const std::string& kernel, const GitHubPull& pull) override;
  std::string rebase(const std::string& kernel, const GitHubPull& pull) override;
  std::string explain(const std::string& kernel) override;
  std::string ignore(const std::string& kernel, const GitHubComment& asked) override;
  std::string unignore(const std::string& kernel, const GitHubComment& asked) override;

 private:
  const config::KernelSpec& spec_of(const std::string& kernel) const;
  std::string remeasure(const std::string& kernel, const std::string& why);

  const config::Config& config_;
  Forge& forge_;
  GitHubClient& client_;
  Evaluator* evaluator_;
  bool dry_run_;
};

// Whether a person's `@kernelbot ignore` still holds for the kernel: recorded, and its source is
// the text it was recorded against. A request whose source has changed since is forgotten here
// (the new code is searched). The note says who asked; "" when the kernel is not ignored.
std::string ignored_on_request(const config::Config& config, const config::KernelSpec& spec);

// The conversation step of `kernelbot run`: when [github].repository and a token are set, the
// commands on the bot's open PRs are answered before any search (in a dry run, the replies go to
// <root>/.kernelbot/prs/conversation.md). GitHub failing here is logged, not fatal: the searches
// still run, and the comments are answered by the next run.
std::vector<AnsweredComment> converse_before_run(const config::Config& config, Forge& forge, Evaluator* evaluator,
                                                 bool dry_run);

}  // namespace kb::bot
