// A unified diff (`diff -u` format, 3 lines of context) computed in-process, so callers (the archive,
// the prompts, the PR) can show what changed without spawning git or diff.
#pragma once

#include <string>

namespace kb {

// The diff turning `before` into `after`, with "--- a/<name>" / "+++ b/<name>" headers; empty
// when the texts are equal.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name,
                         int context = 3);

}  // namespace kb
