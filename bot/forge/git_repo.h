// The repository kernelbot commits to, through libgit2. Commits are built from the base
// branch's tree plus the changed blobs, in the object database: the user's working tree, index
// and HEAD are never touched. Pushing takes the token through a credential callback only, so
// it never reaches .git/config, a remote URL, the disk or a log.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct git_repository;

namespace kb::bot {

// A commit's change replayed onto a base (a cherry-pick: the three-way merge of the commit's
// parent, the base and the commit).
struct ReplayedChange {
  std::string base_commit;             // the commit `base` resolved to (hex)
  std::vector<std::string> conflicts;  // paths the merge could not resolve; when any, `files` is empty
  // Each path the commit changed (relative to the workdir) -> its merged text, and -> its text on
  // the base (nullopt when the base has no such file).
  std::map<std::string, std::string> files;
  std::map<std::string, std::optional<std::string>> at_base;
};

class GitRepo {
 public:
  // The repository containing `dir`, or nullopt when `dir` is not inside one.
  static std::optional<GitRepo> discover(const std::filesystem::path& dir);

  std::filesystem::path workdir() const;

  // Makes a commit on top of `base` (a local branch, else origin/<base>, else HEAD) that changes
  // `files` (path relative to workdir -> new content), and points refs/heads/<branch> at it,
  // replacing any earlier commit there. Returns the commit id (hex).
  std::string commit_on_branch(const std::string& base, const std::string& branch,
                               const std::map<std::string, std::string>& files, const std::string& message,
                               const std::string& author_name, const std::string& author_email);

  // Force-pushes refs/heads/<branch> to `remote` (a configured remote's name, or a URL/path).
  // `token` (may be empty) is offered as the password of user "x-access-token" for HTTPS.
  // Throws kb::Error with libgit2's message, never the token.
  void push(const std::string& remote, const std::string& branch, const std::string& token);

  // The content of `path` (relative to workdir) in the commit `base` resolves to (as for
  // commit_on_branch), or nullopt when that commit has no such file.
  std::optional<std::string> file_at(const std::string& base, const std::string& path) const;

  // Fetches refs/heads/<branch> of `remote` (as for push, token included) into
  // refs/kernelbot/fetched/<branch>, and returns the commit id it points at; "" when the remote
  // has no such branch. Throws std::runtime_error with libgit2's message, never the token.
  std::string fetch_branch(const std::string& remote, const std::string& branch, const std::string& token);

  // Replays the change of `commit` (hex id, relative to its first parent) onto what `base`
  // resolves to, as `git cherry-pick` would, in memory: nothing is checked out or committed.
  // Throws std::runtime_error when the commit or its parent is not in the repository (a shallow
  // clone without that history), or when the change deletes a file.
  ReplayedChange replay_onto(const std::string& commit, const std::string& base) const;

  // The URL of the configured remote `name`, or "" when there is none by that name.
  std::string remote_url(const std::string& name) const;

  // What `base` resolves to: "refs/heads/main", "refs/remotes/origin/main" or "HEAD".
  std::string resolve_base(const std::string& base) const;

 private:
  explicit GitRepo(git_repository* repo);
  std::shared_ptr<git_repository> repo_;
};

}  // namespace kb::bot
