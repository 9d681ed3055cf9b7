// Where pull requests go. Two implementations of one interface, chosen from config: the GitHub
// REST API ([github].repository set) and the dry-run forge (a directory of PR.md files), so the
// main job is the same code with or without a network.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::bot {

// A pull request as kernelbot writes it.
struct PullRequest {
  std::string title;
  std::string body;   // markdown
  std::string head;   // branch name, e.g. "kernelbot/saxpy"
  std::string base;   // e.g. "main"
  std::vector<std::string> labels;
  bool draft = false;
  std::string patch;  // the change as a unified diff (the dry-run forge writes it beside PR.md)
};

// What the forge did with a PullRequest.
struct PullRequestOutcome {
  bool created = false;   // false: an existing open PR of the bot was updated
  int64_t number = 0;     // 0 for the dry-run forge
  std::string url;        // web URL, or the PR.md path for the dry-run forge
};

class Forge {
 public:
  virtual ~Forge() = default;
  virtual std::string name() const = 0;
  // Opens the PR, or updates the bot's open PR for the same head branch instead of opening a
  // second one. Throws std::runtime_error with the forge's own message on failure.
  virtual PullRequestOutcome open_or_update(const PullRequest& pr) = 0;
};

}  // namespace kb::bot
