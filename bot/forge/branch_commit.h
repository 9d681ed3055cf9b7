// The commit behind a pull request: the PR's files on top of its base branch, on its head
// branch, checked against what the winner was measured with.
#pragma once

#include <string>
#include <vector>

#include "bot/forge/forge.h"
#include "bot/forge/git_repo.h"

namespace kb::bot {

// `path` relative to the repository's working directory, as git names it ("src/saxpy.cu"); it
// starts with ".." when `path` lies outside.
std::string path_in_repo(const GitRepo& repo, const std::string& path);

// Commits `pr.files` on refs/heads/<pr.head> from <pr.base> and returns the commit id. Throws
// kb::Error when a file lies outside the repository, or when the base branch's version
// of a file is not the one the change was made against (`pr.originals`): the PR would otherwise
// undo someone's work or carry uncommitted edits.
std::string commit_pull_request(GitRepo& repo, const PullRequest& pr);

// The files (relative to the repository) whose version on <pr.base> is no longer the one the
// change was made against: the base moved under the change, which then says nothing about what
// merging it would do. A file the base lacks is left to commit_pull_request to report.
std::vector<std::string> files_moved_on_base(const GitRepo& repo, const PullRequest& pr);

// The PR body's measured-on lines (pr_lifecycle.h): one per file the change was measured against,
// which a later run without a winner compares with the base (Forge::follow_base).
std::string measured_on_lines(const GitRepo& repo, const PullRequest& pr);

}  // namespace kb::bot
