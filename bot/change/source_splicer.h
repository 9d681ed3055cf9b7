// Turns a winning variant into the PR's text of the repository's own source file. A variant's
// source is always a whole file (an excerpt reply was spliced into one before it was compiled), and
// that file is what was verified and timed, so it is the PR's text: laid out as the original where
// it changed nothing but layout (line endings, final newline, whitespace, deleted comments between
// definitions), with any definition other files can reach that it dropped put back
// (cuda_source/splicing/original_layout.h); a tuned macro default is edited in place. The edit list is read
// from the difference. Build flags and macros the file lacks become notes.
#pragma once

#include <string>
#include <vector>

#include "core/variant.h"
#include "cuda_source/splicing/definition_splice.h"

namespace kb::bot {

struct SourceChange {
  std::string path;      // the file, relative to the repository root
  std::string original;  // its text before
  std::string updated;   // its text after
  // The winner's own text with only the -D values applied: what the PR carries instead when the
  // laid-out `updated` fails to compile (it should not; the compiler is the judge). Empty when the
  // winner changed no source.
  std::string verbatim;
  std::string patch;  // unified diff, "a/<path>" -> "b/<path>"
  // What the edit could not carry and a reviewer must know: build flags, macros the file does
  // not define.
  std::vector<std::string> notes;
  // What was edited, for the PR body: "the default of SAXPY_BLOCK (32 -> 256)", "saxpy_kernel
  // and launch_saxpy replaced".
  std::vector<std::string> edits;
  bool empty() const { return original == updated; }
  // The same change with `verbatim` as its text (patch and edit list made anew).
  SourceChange as_verbatim() const;
};

// `launcher` is the spec's launcher (possibly qualified: ns::launch_x), used to name tuned
// literals: when the result differs from the original only in integer literals, `edits` names
// them ("block size literal in launch_gelu: 32 -> 256"). Throws kb::Error when the winner
// is an advisory probe (search/types/advisory_findings.h), which is never published.
SourceChange make_source_change(const std::string& path, const std::string& original_text, const std::string& launcher,
                                const Variant& winner);

// Edits the file's `#define NAME value` lines (cuda_source/splicing/definition_splice.h); the PR's macro
// defaults and its tests go through it.
using cuda_source::apply_macro_defaults;

}  // namespace kb::bot
