// Where pull requests go. Two implementations of one interface, chosen from config: GitHub
// (bot/forge/github_forge.h: push the branch, then the REST API) and the dry-run forge (a local commit
// when there is a repository, and a directory of PR.md files), so the main job is the same code
// with or without a network.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/archive/declined_changes.h"
#include "search/types/search_types.h"

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

  // What the forge needs to live with the PRs people have had (bot/pr/pr_lifecycle.h): the kernel,
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
  // After a rebase (Forge::follow_base): the measurement of the rebased text, when it was made;
  // and the files whose merge conflicted, when it could not be made.
  std::optional<search::Reverification> remeasured;
  std::vector<std::string> conflicts;
};

// A PR's change replayed onto a new base: what is re-verified there, and then pushed.
struct RebasedText {
  std::string path;       // relative to the repository
  std::string base_text;  // the file on the new base: the original it is measured against
  std::string text;       // the merged text, exactly as the PR will contain it
};
// Re-verifies a rebased text against the base's (bot/change/reverify.h) and returns the record.
using Remeasure = std::function<search::Reverification(const RebasedText&)>;

// What to do about the bot's open PR on `head` when `base` may have moved under it.
struct FollowBase {
  std::string head;  // "kernelbot/<kernel>"
  std::string base;
  // `@kernelbot rebase`: replay and re-measure even when no file the PR was measured on changed.
  bool always = false;
  Remeasure remeasure;  // empty: this job has no GPU
};

class Forge {
 public:
  virtual ~Forge() = default;
  virtual std::string name() const = 0;
  // Commits the change on the head branch and opens the PR, or updates the bot's open PR for
  // the same head branch instead of opening a second one. Throws kb::Error with the
  // forge's own message on failure.
  virtual PullRequestOutcome open_or_update(const PullRequest& pr) = 0;
  // For a run with no winner to publish, and for `@kernelbot rebase`: when a file the bot's open
  // PR on `head` was measured against has changed on `base` since (the PR body's measured-on
  // lines), replays the PR's change onto the base (a three-way merge), re-measures the merged
  // text there and, when it is still a publishable win, pushes it (never over a person's commits)
  // and updates the PR's title, tables and measured-on lines (published). It closes the PR with a
  // note when the merge conflicts or the win is gone ("base moved"), and leaves it open with a
  // note when this job cannot measure. nullopt when it left everything as it was.
  virtual std::optional<PullRequestOutcome> follow_base(const FollowBase& /*request*/) { return std::nullopt; }
};

}  // namespace kb::bot
