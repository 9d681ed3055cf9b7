// The forge used with no GitHub repository configured, or with --dry-run: each PR is written
// to <root>/.kernelbot/prs/<branch>/ as PR.md and change.patch, so the main job runs on any GPU
// box with no network and a person can read exactly what would have been proposed.
#pragma once

#include <filesystem>

#include "bot/forge.h"

namespace kb::bot {

class DryRunForge : public Forge {
 public:
  explicit DryRunForge(std::filesystem::path root) : root_(std::move(root)) {}
  std::string name() const override { return "dry-run"; }
  PullRequestOutcome open_or_update(const PullRequest& pr) override;
  // Where the PR for `head` is written: "kernelbot/saxpy" -> <root>/.kernelbot/prs/kernelbot-saxpy.
  std::filesystem::path directory_for(const std::string& head) const;

 private:
  std::filesystem::path root_;
};

}  // namespace kb::bot
