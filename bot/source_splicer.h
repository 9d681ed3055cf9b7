// Turns a winning variant into an edit of the repository's own source file, so the PR diff
// shows only what changed: a tuned macro default is edited in place; a replacement launcher, the
// kernels it launches and the helpers it rewrites are spliced over the old definitions
// (cuda_source/definition_splice.h), the rest of the file byte-identical; what the candidate
// adds (helpers, includes, macros) goes just before the first replaced definition. Build flags
// and macros the file lacks become notes.
#pragma once

#include <string>
#include <vector>

#include "core/variant.h"
#include "cuda_source/definition_splice.h"

namespace kb::bot {

struct SourceChange {
  std::string path;      // the file, relative to the repository root
  std::string original;  // its text before
  std::string updated;   // its text after
  std::string patch;     // unified diff, "a/<path>" -> "b/<path>"
  // What the edit could not carry and a reviewer must know: build flags, macros the file does
  // not define.
  std::vector<std::string> notes;
  // What was edited, for the PR body: "the default of SAXPY_BLOCK (32 -> 256)", "saxpy_kernel
  // and launch_saxpy replaced".
  std::vector<std::string> edits;
  bool empty() const { return original == updated; }
};

// `launcher` is the spec's launcher (possibly qualified: ns::launch_x); the kernels it launches
// are found by the source scanner. When the result differs from the original only in integer
// literals, `edits` names them ("block size literal in launch_gelu: 32 -> 256"). Throws
// std::runtime_error when a definition to replace cannot be located, or when the winner is an
// advisory probe (search/advisory_findings.h), which is never published.
SourceChange make_source_change(const std::string& path, const std::string& original_text, const std::string& launcher,
                                const Variant& winner);

// Edits the file's `#define NAME value` lines (cuda_source/definition_splice.h); the PR's macro
// defaults and its tests go through it.
using cuda_source::apply_macro_defaults;

}  // namespace kb::bot
