// Splicing one version of a launcher into another file as text: the launcher's definition and
// those of the kernels it launches replace the base's (found by the source scanner), kernels it
// no longer launches go, and everything else the replacement defines, at any namespace depth, is
// paired with the base's (reply_pieces.h): a redefinition replaces the base's in place, a copy is
// left out, and what is new (helpers, constants, types, includes, macros, new kernels) goes before
// its first use, in its own namespaces (piece_placement.h). Internal definitions only the replaced
// code used go (unused_definitions.h); the rest of the base stays byte-identical.
// The PR splicer (bot/change/source_splicer.h) edits the repository's file this way, and the llm
// proposer makes a whole candidate from a reply that holds only the launcher and its kernels.
#pragma once

#include <string>
#include <vector>

namespace kb::cuda_source {

struct DefinitionSplice {
  std::string text;  // the base with the replacement's definitions in place of its own
  // "NAME=VALUE" for each object-like #define the replacement writes with another value than the
  // base's: for apply_macro_defaults, which edits the base's line in place.
  std::vector<std::string> macro_edits;
  // What was done, for a PR body: "launch_saxpy, saxpy_kernel, kBlock replaced by the winner's
  // definitions", "new kernels k2 added", "load4 (in namespace ops) added before their first use",
  // "k1 removed (no longer launched)", "kOldTile removed (no longer used)".
  std::vector<std::string> edits;
};

// `launcher` may be qualified (ns::launch_x); overloads are paired by their parameters' types.
// Throws kb::Error when the base or the replacement has no definition of the launcher
// that launches a kernel, when the replacement launches a kernel it does not define, or when the
// definitions to replace overlap.
DefinitionSplice splice_definitions(const std::string& path, const std::string& base, const std::string& launcher,
                                    const std::string& replacement);

// Where the comment lines directly above a definition starting at `definition_begin` start (no
// blank line between): its doc comment, which goes (or is replaced) with it. `definition_begin`
// when there is none.
size_t leading_comment_begin(const std::string& text, size_t definition_begin);

// The new text with every "NAME=VALUE" define applied to the file's `#define NAME value` lines
// (indentation, spacing and trailing comments kept); names with no such line are returned in
// `missing`. `edits` (may be null) receives "the default of NAME (old -> new)" for each changed
// line.
std::string apply_macro_defaults(const std::string& text, const std::vector<std::string>& defines,
                                 std::vector<std::string>& missing, std::vector<std::string>* edits = nullptr);

}  // namespace kb::cuda_source
