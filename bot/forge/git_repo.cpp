#include "bot/forge/git_repo.h"

#include <git2.h>

#include <algorithm>
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
using Index = Owned<git_index, git_index_free>;
using Diff = Owned<git_diff, git_diff_free>;
using Blob = Owned<git_blob, git_blob_free>;

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

std::string blob_text(git_repository* repo, const git_oid& id, const std::string& path) {
  Blob blob;
  check(git_blob_lookup(blob.out(), repo, &id), "read " + path);
  return {static_cast<const char*>(git_blob_rawcontent(blob.get())), static_cast<size_t>(git_blob_rawsize(blob.get()))};
}

std::optional<std::string> text_in_tree(git_repository* repo, git_tree* tree, const std::string& path) {
  Owned<git_tree_entry, git_tree_entry_free> entry;
  if (git_tree_entry_bypath(entry.out(), tree, path.c_str()) != 0) return std::nullopt;
  return blob_text(repo, *git_tree_entry_id(entry.get()), path);
}

// Opens `name` as a configured remote, else as a URL or path (an anonymous remote, which writes
// nothing to .git/config): push and fetch_branch take either.
void open_remote(Remote& remote, git_repository* repo, const std::string& name) {
  if (git_remote_lookup(remote.out(), repo, name.c_str()) != 0)
    check(git_remote_create_anonymous(remote.out(), repo, name.c_str()), "open remote " + name);
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

std::string GitRepo::fetch_branch(const std::string& remote_name, const std::string& branch, const std::string& token) {
  git_repository* repo = repo_.get();
  Remote remote;
  open_remote(remote, repo, remote_name);
  PushState state{token, 0, ""};
  git_fetch_options options;
  check(git_fetch_options_init(&options, GIT_FETCH_OPTIONS_VERSION), "init fetch options");
  options.callbacks.credentials = credentials;
  options.callbacks.payload = &state;
  options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
  const std::string local = "refs/kernelbot/fetched/" + branch;
  // A stale copy from an earlier fetch must not pass for the branch when the remote has none.
  Reference old;
  if (git_reference_lookup(old.out(), repo, local.c_str()) == 0) git_reference_delete(old.get());
  std::string refspec = "+refs/heads/" + branch + ":" + local;
  char* specs[] = {refspec.data()};
  git_strarray refspecs{specs, 1};
  check(git_remote_fetch(remote.get(), &refspecs, &options, "kernelbot: fetch the pull request's branch"),
        "fetch " + branch + " from " + remote_name);
  Object fetched;
  if (git_revparse_single(fetched.out(), repo, local.c_str()) != 0) return "";
  return hex(*git_object_id(fetched.get()));
}

ReplayedChange GitRepo::replay_onto(const std::string& commit_hex, const std::string& base) const {
  git_repository* repo = repo_.get();
  git_oid commit_id;
  check(git_oid_fromstr(&commit_id, commit_hex.c_str()), "read the commit id " + commit_hex);
  Commit commit;
  check(git_commit_lookup(commit.out(), repo, &commit_id), "look up " + commit_hex);
  Commit parent;
  if (git_commit_parent(parent.out(), commit.get(), 0) != 0)
    throw kb::Error("git: the parent of " + commit_hex.substr(0, 12) +
                    " is not in this repository (a shallow clone? check out with the history, e.g. "
                    "actions/checkout's fetch-depth: 0)");
  const std::string used = resolve_base(base);
  Object base_object;
  check(git_revparse_single(base_object.out(), repo, (used + "^{commit}").c_str()), "resolve " + used);
  Commit onto;
  check(git_commit_lookup(onto.out(), repo, git_object_id(base_object.get())), "look up " + used);

  ReplayedChange out;
  out.base_commit = hex(*git_commit_id(onto.get()));
  git_merge_options merge_options;
  check(git_merge_options_init(&merge_options, GIT_MERGE_OPTIONS_VERSION), "init merge options");
  Index index;
  check(git_cherrypick_commit(index.out(), repo, commit.get(), onto.get(), 0, &merge_options),
        "merge " + commit_hex.substr(0, 12) + " onto " + used);
  if (git_index_has_conflicts(index.get())) {
    Owned<git_index_conflict_iterator, git_index_conflict_iterator_free> conflicts;
    check(git_index_conflict_iterator_new(conflicts.out(), index.get()), "list the conflicts");
    const git_index_entry *ancestor = nullptr, *ours = nullptr, *theirs = nullptr;
    while (git_index_conflict_next(&ancestor, &ours, &theirs, conflicts.get()) == 0) {
      const git_index_entry* any = ours ? ours : theirs ? theirs : ancestor;
      if (any && std::find(out.conflicts.begin(), out.conflicts.end(), any->path) == out.conflicts.end())
        out.conflicts.emplace_back(any->path);
    }
    return out;
  }
  Tree parent_tree, commit_tree, base_tree;
  check(git_commit_tree(parent_tree.out(), parent.get()), "read the tree of the parent");
  check(git_commit_tree(commit_tree.out(), commit.get()), "read the tree of " + commit_hex.substr(0, 12));
  check(git_commit_tree(base_tree.out(), onto.get()), "read the tree of " + used);
  Diff diff;
  check(git_diff_tree_to_tree(diff.out(), repo, parent_tree.get(), commit_tree.get(), nullptr),
        "list the files " + commit_hex.substr(0, 12) + " changes");
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    const std::string path = delta->new_file.path;
    const git_index_entry* merged = git_index_get_bypath(index.get(), path.c_str(), 0);
    if (delta->status == GIT_DELTA_DELETED || !merged)
      throw kb::Error("git: " + commit_hex.substr(0, 12) + " deletes " + path +
                      "; kernelbot replays only changes that edit files");
    out.files[path] = blob_text(repo, merged->id, path);
    out.at_base[path] = text_in_tree(repo, base_tree.get(), path);
  }
  return out;
}

void GitRepo::push(const std::string& remote_name, const std::string& branch, const std::string& token) {
  git_repository* repo = repo_.get();
  Remote remote;
  open_remote(remote, repo, remote_name);
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
