// A unified diff in git's format, made in-process by libgit2 from two texts, so callers (the
// archive, the prompts, the PR) can show what changed without spawning git or diff. It is its own
// library (kb_diff) because the judge links common/ and must not link libgit2.
#pragma once

#include <string>

namespace kb {

// The diff turning `before` into `after`, as `git diff` prints it: "diff --git a/<name> b/<name>",
// the blobs' "index" line, "--- a/<name>" / "+++ b/<name>", then hunks with 3 lines of context
// (their headers name the enclosing function, as git's do). Always a text diff, even for bytes git
// would call binary. Empty when the texts are equal. Throws kb::Error with libgit2's message.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name);

}  // namespace kb
