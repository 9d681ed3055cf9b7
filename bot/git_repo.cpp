#include "bot/git_repo.h"

#include <git2.h>

#include <mutex>
#include <stdexcept>
#include <vector>

#include "core/errors.h"

namespace kb::bot {
namespace {

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

// Throws with libgit2's last error message when `rc` is an error.
void check(int rc, const std::string& what) {
  if (rc >= 0) return;
  const git_error* e = git_error_last();
  throw Error("git: " + what + ": " + (e && e->message ? e->message : "error " + std::to_string(rc)));
}

template <typename T, void (*Free)(T*)>
struct Owned {
  T* ptr = nullptr;
  ~Owned() {
    if (ptr) Free(ptr);
  }
  T** out() { return &ptr; }
  T* get() const { return ptr; }
};
using Reference = Owned<git_reference, git_reference_free>;
using Commit = Owned<git_commit, git_commit_free>;
using Tree = Owned<git_tree, git_tree_free>;
using Remote = Owned<git_remote, git_remote_free>;
using Signature = Owned<git_signature, git_signature_free>;
using Object = Owned<git_object, git_object_free>;

std::string hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

struct PushState {
  std::string token;
  int credential_calls = 0;
  std::string rejected;
};

int credentials(git_credential** out, const char*, const char*, unsigned int allowed, void* payload) {
  auto* state = static_cast<PushState*>(payload);
  // A second call means the first answer was refused: stop instead of looping.
  if (state->token.empty() || ++state->credential_calls > 1 || !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
    return GIT_PASSTHROUGH;
  return git_credential_userpass_plaintext_new(out, "x-access-token", state->token.c_str());
}

int push_status(const char* ref, const char* status, void* payload) {
  if (status) static_cast<PushState*>(payload)->rejected = std::string(ref) + ": " + status;
  return 0;
}

}  // namespace

GitRepo::GitRepo(git_repository* repo) : repo_(repo, git_repository_free) {}

std::optional<GitRepo> GitRepo::discover(const std::filesystem::path& dir) {
  init_once();
  git_buf found = GIT_BUF_INIT;
  if (git_repository_discover(&found, dir.c_str(), 0, nullptr) != 0) return std::nullopt;
  std::string path(found.ptr, found.size);
  git_buf_dispose(&found);
  git_repository* repo = nullptr;
  check(git_repository_open(&repo, path.c_str()), "open " + path);
  if (git_repository_is_bare(repo)) {
    git_repository_free(repo);
    return std::nullopt;
  }
  return GitRepo(repo);
}

std::filesystem::path GitRepo::workdir() const { return git_repository_workdir(repo_.get()); }

std::string GitRepo::remote_url(const std::string& name) const {
  Remote remote;
  if (git_remote_lookup(remote.out(), repo_.get(), name.c_str()) != 0) return "";
  const char* url = git_remote_url(remote.get());
  return url ? url : "";
}

std::string GitRepo::resolve_base(const std::string& base) const {
  const std::string candidates[] = {"refs/heads/" + base, "refs/remotes/origin/" + base, "HEAD"};
  for (const auto& spec : candidates) {
    Object object;
    if (git_revparse_single(object.out(), repo_.get(), spec.c_str()) == 0) return spec;
  }
  throw Error("git: no branch '" + base + "' (local or origin/" + base + ") and no HEAD commit to build on");
}

std::optional<std::string> GitRepo::file_at(const std::string& base, const std::string& path) const {
  git_repository* repo = repo_.get();
  Object object;
  check(git_revparse_single(object.out(), repo, (resolve_base(base) + "^{tree}").c_str()), "read the tree of " + base);
  Owned<git_tree_entry, git_tree_entry_free> entry;
  if (git_tree_entry_bypath(entry.out(), reinterpret_cast<git_tree*>(object.get()), path.c_str()) != 0)
    return std::nullopt;
  Owned<git_blob, git_blob_free> blob;
  if (git_blob_lookup(blob.out(), repo, git_tree_entry_id(entry.get())) != 0) return std::nullopt;
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<size_t>(git_blob_rawsize(blob.get())));
}

std::string GitRepo::commit_on_branch(const std::string& base, const std::string& branch,
                                      const std::map<std::string, std::string>& files, const std::string& message,
                                      const std::string& author_name, const std::string& author_email) {
  git_repository* repo = repo_.get();
  const std::string used = resolve_base(base);
  Object base_object;
  check(git_revparse_single(base_object.out(), repo, used.c_str()), "resolve " + used);
  Commit parent;
  check(git_commit_lookup(parent.out(), repo, git_object_id(base_object.get())), "look up " + used);
  Tree base_tree;
  check(git_commit_tree(base_tree.out(), parent.get()), "read the tree of " + used);

  std::vector<git_tree_update> updates;
  std::vector<std::string> paths;
  paths.reserve(files.size());
  for (const auto& [path, content] : files) {
    git_oid blob;
    check(git_blob_create_from_buffer(&blob, repo, content.data(), content.size()), "store " + path);
    paths.push_back(path);
    git_tree_update u{};
    u.action = GIT_TREE_UPDATE_UPSERT;
    u.id = blob;
    u.filemode = GIT_FILEMODE_BLOB;
    u.path = paths.back().c_str();
    updates.push_back(u);
  }
  git_oid tree_id;
  check(git_tree_create_updated(&tree_id, repo, base_tree.get(), updates.size(), updates.data()), "build the tree");
  Tree tree;
  check(git_tree_lookup(tree.out(), repo, &tree_id), "read the new tree");
  Signature author;
  check(git_signature_now(author.out(), author_name.c_str(), author_email.c_str()), "make the author signature");
  git_oid commit_id;
  const git_commit* parents[] = {parent.get()};
  check(git_commit_create(&commit_id, repo, nullptr, author.get(), author.get(), "UTF-8", message.c_str(), tree.get(),
                          1, parents),
        "commit");
  Reference ref;
  check(git_reference_create(ref.out(), repo, ("refs/heads/" + branch).c_str(), &commit_id, /*force=*/1,
                             ("kernelbot: " + branch).c_str()),
        "point " + branch + " at the commit");
  return hex(commit_id);
}

void GitRepo::push(const std::string& remote_name, const std::string& branch, const std::string& token) {
  git_repository* repo = repo_.get();
  Remote remote;
  if (git_remote_lookup(remote.out(), repo, remote_name.c_str()) != 0)
    check(git_remote_create_anonymous(remote.out(), repo, remote_name.c_str()), "open remote " + remote_name);
  PushState state{token, 0, ""};
  git_push_options options;
  check(git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION), "init push options");
  options.callbacks.credentials = credentials;
  options.callbacks.push_update_reference = push_status;
  options.callbacks.payload = &state;
  std::string refspec = "+refs/heads/" + branch + ":refs/heads/" + branch;
  char* specs[] = {refspec.data()};
  git_strarray refspecs{specs, 1};
  check(git_remote_push(remote.get(), &refspecs, &options), "push " + branch + " to " + remote_name);
  if (!state.rejected.empty()) throw Error("git: the remote rejected " + state.rejected);
}

}  // namespace kb::bot
