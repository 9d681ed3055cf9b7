#include "common/unified_diff.h"

#include <git2.h>

#include <memory>
#include <mutex>
#include <stdexcept>

#include "core/errors.h"

namespace kb {
namespace {

void check(int rc, const std::string& what) {
  if (rc >= 0) return;
  const git_error* e = git_error_last();
  throw Error(what + ": " + (e && e->message ? e->message : "libgit2 error"));
}

struct PatchFree {
  void operator()(git_patch* p) const { git_patch_free(p); }
};

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after, const std::string& name) {
  if (before == after) return "";
  // libgit2 must be initialized once before any call; it counts initializations, so this one
  // coexists with the bot's own (bot/forge/git_repo.cpp).
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
  // git_diff_options_init, not GIT_DIFF_OPTIONS_INIT: the macro leaves fields out of its braces,
  // which clang (and clang-tidy) warn about under -Wextra.
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  options.flags |= GIT_DIFF_FORCE_TEXT;  // a source with a stray NUL byte still shows its lines
  git_patch* raw = nullptr;
  check(git_patch_from_buffers(&raw, before.data(), before.size(), name.c_str(), after.data(), after.size(),
                               name.c_str(), &options),
        "cannot diff " + name);
  std::unique_ptr<git_patch, PatchFree> patch(raw);
  git_buf text = GIT_BUF_INIT;
  const int rc = git_patch_to_buf(&text, patch.get());
  std::string out = rc >= 0 ? std::string(text.ptr, text.size) : "";
  git_buf_dispose(&text);
  check(rc, "cannot print the diff of " + name);
  return out;
}

}  // namespace kb
