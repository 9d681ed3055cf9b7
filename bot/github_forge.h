// The forge for a GitHub repository: commit on kernelbot/<kernel> (libgit2), force-push it with
// the token, then open the PR through the REST API, or update the bot's open PR for that branch
// instead of opening a second one. [github].max_open_prs caps how many of the bot's PRs are open.
// Before anything is pushed, the branch's PRs are read for what people did with them
// (bot/pr_lifecycle.h): an ignore label, PRs closed without merging, commits of their own; and
// a base that moved under the change closes the open PR with a note instead of pushing.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "bot/forge.h"
#include "bot/git_repo.h"
#include "bot/github_client.h"
#include "config/config.h"

namespace kb::bot {

class GitHubForge : public Forge {
 public:
  // `push_target`: a remote's name or a URL/path to push the branch to.
  GitHubForge(config::GithubConfig github, GitRepo repo, std::string push_target, std::string token,
              std::unique_ptr<GitHubClient> client);
  std::string name() const override { return "github"; }
  PullRequestOutcome open_or_update(const PullRequest& pr) override;
  std::optional<PullRequestOutcome> close_if_base_moved(const std::string& head, const std::string& base) override;

 private:
  std::optional<PullRequestOutcome> withheld_by_people(const PullRequest& pr,
                                                       const std::vector<GitHubPull>& branch_pulls,
                                                       const std::vector<GitHubPull>& open, PullRequestOutcome& outcome,
                                                       std::optional<search::DeclinedChange>& supersedes);
  config::GithubConfig github_;
  GitRepo repo_;
  std::string push_target_;
  std::string token_;
  std::unique_ptr<GitHubClient> client_;
};

// Where to push for `github`: with a token, any network remote (HTTPS, SSH, whatever URL
// .git/config holds) is replaced by the HTTPS URL of [github].repository on [github].api_url's
// web host, so the token goes nowhere else; a local path is used as it is (no token is sent). A
// [github].remote that is not a remote's name is used as a URL or path.
std::string push_target_for(const config::GithubConfig& github, const GitRepo& repo, bool have_token);

}  // namespace kb::bot
