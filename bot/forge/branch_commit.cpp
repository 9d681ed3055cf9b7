#include "bot/forge/branch_commit.h"

#include <filesystem>
#include <stdexcept>

#include "bot/pr/pr_lifecycle.h"
#include "core/errors.h"

namespace kb::bot {

std::string path_in_repo(const GitRepo& repo, const std::string& path) {
  namespace fs = std::filesystem;
  return fs::weakly_canonical(path).lexically_relative(fs::weakly_canonical(repo.workdir())).generic_string();
}

std::string commit_pull_request(GitRepo& repo, const PullRequest& pr) {
  std::map<std::string, std::string> files;
  for (const auto& [path, content] : pr.files) {
    std::string rel = path_in_repo(repo, path);
    if (rel.empty() || rel.starts_with(".."))
      throw Error(path + " is outside the git repository at " +
                  std::filesystem::weakly_canonical(repo.workdir()).string());
    auto original = pr.originals.find(path);
    if (original != pr.originals.end()) {
      auto at_base = repo.file_at(pr.base, rel);
      const std::string base = repo.resolve_base(pr.base);
      if (!at_base)
        throw Error(rel + " is not in " + base + ": commit it before kernelbot can open a PR that changes it");
      if (*at_base != original->second)
        throw Error(rel + " in " + base +
                    " is not the version the winner was measured against (the "
                    "working tree has other changes, or " +
                    pr.base +
                    " moved on): commit or stash "
                    "them, then publish the saved winner again with `kernelbot pr`");
    }
    files[rel] = content;
  }
  return repo.commit_on_branch(pr.base, pr.head, files, pr.commit_message, pr.author_name, pr.author_email);
}

std::vector<std::string> files_moved_on_base(const GitRepo& repo, const PullRequest& pr) {
  std::vector<std::string> moved;
  for (const auto& [path, original] : pr.originals) {
    std::string rel = path_in_repo(repo, path);
    auto at_base = repo.file_at(pr.base, rel);
    if (at_base && *at_base != original) moved.push_back(rel);
  }
  return moved;
}

std::string measured_on_lines(const GitRepo& repo, const PullRequest& pr) {
  std::string out;
  for (const auto& [path, original] : pr.originals)
    out += measured_on_marker(path_in_repo(repo, path), original) + "\n";
  return out;
}

}  // namespace kb::bot
