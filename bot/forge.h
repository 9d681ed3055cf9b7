// Where pull requests go. Two implementations of one interface, chosen from config: GitHub
// (bot/github_forge.h: push the branch, then the REST API) and the dry-run forge (a local commit
// when there is a repository, and a directory of PR.md files), so the main job is the same code
// with or without a network.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/declined_changes.h"

namespace kb::bot {

// A pull request as kernelbot writes it: the text, and the commit that carries the change.
struct PullRequest {
  std::string title;
  std::string body;  // markdown
  std::string head;  // branch name, e.g. "kernelbot/saxpy"
  std::string base;  // e.g. "main"
  std::vector<std::string> labels;
  bool draft = false;
  std::string patch;  // the change as a unified diff (the dry-run forge writes it beside PR.md)

  // The commit: absolute path of each changed file -> its new content, and what the change was
  // made against (absolute path -> the text the winner was measured with), so a base branch that
  // moved on is noticed instead of silently overwritten.
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> originals;
  std::string commit_message;
  std::string author_name = "kernelbot";
  std::string author_email = "kernelbot@users.noreply.github.com";

  // What the forge needs to live with the PRs people have had (bot/pr_lifecycle.h): the kernel,
  // the change's identity and re-verified speedup, and the kernel's PRs closed without merging
  // that the archive remembers.
  std::string kernel;
  std::string change_id;
  double speedup = 0;
  std::vector<search::DeclinedChange> declined;
};

// What the forge did with a PullRequest.
struct PullRequestOutcome {
  bool published = true;  // false: deliberately not opened (see `note`), e.g. max_open_prs reached
  bool created = false;   // false: an existing open PR of the bot was updated
  int64_t number = 0;     // 0 for the dry-run forge
  std::string url;        // web URL, or the PR.md path for the dry-run forge
  std::string commit;     // the commit id on the head branch ("" when no commit was made)
  std::string note;       // what a person should know: no git repository, PRs closed as superseded...
  // With published false, why the PR's people asked for it not to be (a result, not a failure):
  // "declined before" (closed unmerged), "ignored" (the kernelbot: ignore label), "left to a
  // person" (someone's commits on the branch; the PR got a comment), "closed: base moved".
  std::string withheld;
  // PRs closed without merging that the forge learned of, for the archive to remember.
  std::vector<search::DeclinedChange> declined;
};

class Forge {
 public:
  virtual ~Forge() = default;
  virtual std::string name() const = 0;
  // Commits the change on the head branch and opens the PR, or updates the bot's open PR for
  // the same head branch instead of opening a second one. Throws kb::Error with the
  // forge's own message on failure.
  virtual PullRequestOutcome open_or_update(const PullRequest& pr) = 0;
  // For a run with no winner to publish: closes the bot's open PR on `head` when a file it was
  // measured against has changed on `base` since (the PR body's measured-on lines), with the
  // base-moved comment, and says so ("base moved"); nullopt when it left everything as it was.
  virtual std::optional<PullRequestOutcome> close_if_base_moved(const std::string& /*head*/,
                                                                const std::string& /*base*/) {
    return std::nullopt;
  }
};

}  // namespace kb::bot
