// The forge for a GitHub repository: commit on kernelbot/<kernel> (libgit2), force-push it with
// the token, then open the PR through the REST API, or update the bot's open PR for that branch
// instead of opening a second one. [github].max_open_prs caps how many of the bot's PRs are open.
// Before anything is pushed, the branch's PRs are read for what people did with them
// (bot/pr/pr_lifecycle.h): an ignore label, PRs closed without merging, commits of their own; and
// a winner measured against a base that has moved since is not pushed (the open PR follows the
// base instead: Forge::follow_base rebases and re-measures it, or closes it with a note).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "bot/forge/forge.h"
#include "bot/forge/git_repo.h"
#include "bot/forge/github_client.h"
#include "config/config.h"

namespace kb::bot {

class GitHubForge : public Forge {
 public:
  // `push_target`: a remote's name or a URL/path to push the branch to.
  GitHubForge(config::GithubConfig github, GitRepo repo, std::string push_target, std::string token,
              std::unique_ptr<GitHubClient> client);
  std::string name() const override { return "github"; }
  PullRequestOutcome open_or_update(const PullRequest& pr) override;
  std::optional<PullRequestOutcome> follow_base(const FollowBase& request) override;
  // From now on follow_base reads GitHub and the remote as usual but changes nothing there: what
  // it would post (comments, closing notes, a rebased PR's title and body) is appended to `file`,
  // and a rebased commit is made on the local branch only (the dry run's forge uses this).
  void write_instead_of_posting(std::filesystem::path file) { dry_run_file_ = std::move(file); }

 private:
  std::optional<PullRequestOutcome> follow_base_of(const GitHubPull& pull, const FollowBase& request);
  // Posts `body` on PR `number` unless the PR already has exactly that comment (a nightly run
  // finds the same state every night); whether it was posted.
  bool comment_once(int64_t number, const std::string& body);
  std::optional<PullRequestOutcome> withheld_by_people(const PullRequest& pr,
                                                       const std::vector<GitHubPull>& branch_pulls,
                                                       const std::vector<GitHubPull>& open, PullRequestOutcome& outcome,
                                                       std::optional<search::DeclinedChange>& supersedes);
  config::GithubConfig github_;
  GitRepo repo_;
  std::string push_target_;
  std::string token_;
  std::unique_ptr<GitHubClient> client_;
  std::filesystem::path dry_run_file_;
  // What follow_base would post, in a dry run.
  void write_would(const std::string& what, const std::string& text);
};

// Where to push for `github`: with a token, any network remote (HTTPS, SSH, whatever URL
// .git/config holds) is replaced by the HTTPS URL of [github].repository on [github].api_url's
// web host, so the token goes nowhere else; a local path is used as it is (no token is sent). A
// [github].remote that is not a remote's name is used as a URL or path.
std::string push_target_for(const config::GithubConfig& github, const GitRepo& repo, bool have_token);

}  // namespace kb::bot
