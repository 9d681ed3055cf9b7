// The forge used with no GitHub repository configured, or with --dry-run: the branch and commit
// are made locally (when the root is in a git repository; nothing is pushed), and each PR is
// written to <root>/.kernelbot/prs/<branch>/ as PR.md and change.patch, so the main job runs on
// any GPU box with no network and a person can read exactly what would have been proposed.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "bot/forge/forge.h"
#include "bot/forge/git_repo.h"
#include "bot/forge/github_forge.h"

namespace kb::bot {

class DryRunForge : public Forge {
 public:
  // `repo`: the repository to commit in, or nullopt to skip git (and say so).
  DryRunForge(std::filesystem::path root, std::optional<GitRepo> repo)
      : root_(std::move(root)), repo_(std::move(repo)) {}
  std::string name() const override { return "dry-run"; }
  PullRequestOutcome open_or_update(const PullRequest& pr) override;
  // With a repository on GitHub and a token: `github` reads the bot's open PRs and replays them
  // onto a base that moved (Forge::follow_base), writing what it would post instead of posting it.
  void follow_base_through(std::unique_ptr<GitHubForge> github) { github_ = std::move(github); }
  std::optional<PullRequestOutcome> follow_base(const FollowBase& request) override {
    return github_ ? github_->follow_base(request) : std::nullopt;
  }
  // Where the PR for `head` is written: "kernelbot/saxpy" -> <root>/.kernelbot/prs/kernelbot-saxpy.
  std::filesystem::path directory_for(const std::string& head) const;

 private:
  std::filesystem::path root_;
  std::optional<GitRepo> repo_;
  std::unique_ptr<GitHubForge> github_;
};

}  // namespace kb::bot
