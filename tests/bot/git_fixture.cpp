#include "tests/bot/git_fixture.h"

#include <git2.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kb::testing {
namespace {

void check(int rc, const char* what) {
  if (rc < 0) {
    const git_error* e = git_error_last();
    throw std::runtime_error(std::string(what) + ": " + (e && e->message ? e->message : "libgit2 error"));
  }
}

struct Lib {
  Lib() { git_libgit2_init(); }
  ~Lib() { git_libgit2_shutdown(); }
};

git_repository* open(const std::filesystem::path& dir) {
  static Lib lib;
  git_repository* repo = nullptr;
  check(git_repository_open(&repo, dir.c_str()), "open");
  return repo;
}

}  // namespace

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string init_repo_with_commit(const std::filesystem::path& dir, const std::string& message) {
  static Lib lib;
  git_repository* repo = nullptr;
  git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  opts.flags = GIT_REPOSITORY_INIT_MKPATH;
  opts.initial_head = "main";
  check(git_repository_init_ext(&repo, dir.c_str(), &opts), "init");
  git_index* index = nullptr;
  check(git_repository_index(&index, repo), "index");
  check(git_index_add_all(index, nullptr, 0, nullptr, nullptr), "add all");
  check(git_index_write(index), "write index");
  git_oid tree_id, commit_id;
  check(git_index_write_tree(&tree_id, index), "write tree");
  git_tree* tree = nullptr;
  check(git_tree_lookup(&tree, repo, &tree_id), "tree");
  git_signature* sig = nullptr;
  check(git_signature_now(&sig, "Test User", "test@example.com"), "signature");
  check(git_commit_create(&commit_id, repo, "HEAD", sig, sig, "UTF-8", message.c_str(), tree, 0, nullptr), "commit");
  git_signature_free(sig);
  git_tree_free(tree);
  git_index_free(index);
  git_repository_free(repo);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &commit_id);
  return hex;
}

void init_bare_repo(const std::filesystem::path& dir) {
  static Lib lib;
  git_repository* repo = nullptr;
  check(git_repository_init(&repo, dir.c_str(), 1), "init bare");
  git_repository_free(repo);
}

void add_remote(const std::filesystem::path& repo_dir, const std::string& name, const std::string& url) {
  git_repository* repo = open(repo_dir);
  git_remote* remote = nullptr;
  check(git_remote_create(&remote, repo, name.c_str(), url.c_str()), "remote create");
  git_remote_free(remote);
  git_repository_free(repo);
}

std::string ref_target(const std::filesystem::path& dir, const std::string& ref) {
  git_repository* repo = open(dir);
  git_oid oid;
  std::string out;
  if (git_reference_name_to_id(&oid, repo, ref.c_str()) == 0) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &oid);
    out = hex;
  }
  git_repository_free(repo);
  return out;
}

std::optional<std::string> file_in(const std::filesystem::path& dir, const std::string& ref, const std::string& path) {
  git_repository* repo = open(dir);
  std::optional<std::string> out;
  git_object* obj = nullptr;
  if (git_revparse_single(&obj, repo, (ref + ":" + path).c_str()) == 0) {
    if (git_object_type(obj) == GIT_OBJECT_BLOB) {
      auto* blob = reinterpret_cast<git_blob*>(obj);
      out = std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                        static_cast<size_t>(git_blob_rawsize(blob)));
    }
    git_object_free(obj);
  }
  git_repository_free(repo);
  return out;
}

CommitInfo commit_info(const std::filesystem::path& dir, const std::string& ref) {
  git_repository* repo = open(dir);
  CommitInfo info;
  git_object* obj = nullptr;
  check(git_revparse_single(&obj, repo, ref.c_str()), "resolve");
  auto* commit = reinterpret_cast<git_commit*>(obj);
  info.message = git_commit_message(commit);
  info.author_name = git_commit_author(commit)->name;
  info.author_email = git_commit_author(commit)->email;
  info.parent_count = static_cast<int>(git_commit_parentcount(commit));
  if (info.parent_count > 0) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, git_commit_parent_id(commit, 0));
    info.parent = hex;
    git_commit* parent = nullptr;
    check(git_commit_parent(&parent, commit, 0), "parent");
    git_tree *a = nullptr, *b = nullptr;
    check(git_commit_tree(&a, parent), "parent tree");
    check(git_commit_tree(&b, commit), "tree");
    git_diff* diff = nullptr;
    check(git_diff_tree_to_tree(&diff, repo, a, b, nullptr), "diff");
    for (size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
      const git_diff_delta* d = git_diff_get_delta(diff, i);
      info.changed[d->new_file.path] = std::string(1, git_diff_status_char(d->status));
    }
    git_diff_free(diff);
    git_tree_free(a);
    git_tree_free(b);
    git_commit_free(parent);
  }
  git_object_free(obj);
  git_repository_free(repo);
  return info;
}

void copy_examples_into(const std::filesystem::path& examples, const std::filesystem::path& repo) {
  std::filesystem::create_directories(repo);
  for (const char* part : {"src", "include", "kernelbot.toml"})
    std::filesystem::copy(examples / part, repo / part, std::filesystem::copy_options::recursive);
}

}  // namespace kb::testing
