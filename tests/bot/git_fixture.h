// Real git repositories for tests, made with libgit2: a work tree with a first commit on
// `main`, bare repositories to push to, and reading back what a branch holds.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace kb::testing {

// Initializes `dir` as a repository, adds every file under it and commits on refs/heads/main
// (HEAD -> main). Returns the commit id.
std::string init_repo_with_commit(const std::filesystem::path& dir, const std::string& message = "base");

// A new bare repository at `dir`.
void init_bare_repo(const std::filesystem::path& dir);

// Sets remote `name` of the repository at `repo_dir` to `url`.
void add_remote(const std::filesystem::path& repo_dir, const std::string& name, const std::string& url);

// The commit id `ref` ("refs/heads/kernelbot/saxpy") points at in the repository at `dir`, or "".
std::string ref_target(const std::filesystem::path& dir, const std::string& ref);

// The content of `path` in the commit `ref` points at, or nullopt.
std::optional<std::string> file_in(const std::filesystem::path& dir, const std::string& ref, const std::string& path);

struct CommitInfo {
  std::string message, author_name, author_email;
  std::string parent;  // first parent's id
  int parent_count = 0;
  std::map<std::string, std::string> changed;  // path -> "M"/"A"/"D" against the first parent
};
CommitInfo commit_info(const std::filesystem::path& dir, const std::string& ref);

// A fresh copy of examples/ (sources, headers, kernelbot.toml) in `repo`, for tests that run
// kernelbot on a repository of their own.
void copy_examples_into(const std::filesystem::path& examples, const std::filesystem::path& repo);

std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace kb::testing
