// A whole file that a candidate wrote, made into the PR's text with the smallest diff that keeps
// what the candidate changed. A model asked for the complete translation unit writes the file
// back with its own layout: another final newline, LF where the file had CRLF, re-indented lines,
// a dropped file header or doc comment, now and then a dropped function nobody asked it to touch.
// A reviewer should see the winner's change, not those accidents, and the user's code must never
// be deleted as a side effect: so lines the candidate changed only in whitespace, and comment lines
// between definitions that it only deleted, are the original's again; the original's line endings
// and final newline (or its absence) are kept; a definition another file can reach (not `static`,
// `inline`, a template or in an anonymous namespace) that the candidate no longer defines is put
// back. None of this changes what the code computes, and the PR's text is compiled, verified and
// timed again before it is published (bot/change/reverify.h) in any case.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kb::cuda_source {

struct LaidOutText {
  std::string text;
  // Definitions of the original put back ("main", "ops::launch_other"), for the PR's edit list.
  std::vector<std::string> restored;
  size_t whitespace_lines_kept = 0;  // original lines the candidate changed only in whitespace
  size_t comment_lines_kept = 0;     // comment lines between definitions it only deleted
};

// `candidate` laid out as `original` wherever it changed nothing but layout (see above).
LaidOutText keep_original_layout(const std::string& original, const std::string& candidate, const std::string& path);

// Whether the function defined at [begin, end) of `text` can be called or launched from another
// translation unit: not static, inline, constexpr or a template (those must be defined where they
// are used), not in an anonymous namespace, not inside a class or function.
bool reachable_from_other_files(const std::string& text, size_t begin, size_t end);

// What changed between two versions of a file, by definition, for a PR's edit list: "launch_gemm,
// gemm_kernel replaced by the winner's definitions", "new tiled_gemm_kernel, detail::launch_tiled
// added", "naive_kernel removed (no longer used)", "2 other top-level pieces (types, constants,
// macros, includes) added or changed". Empty when the texts define the same things alike.
std::vector<std::string> describe_definition_changes(const std::string& original, const std::string& updated,
                                                     const std::string& path);

}  // namespace kb::cuda_source
