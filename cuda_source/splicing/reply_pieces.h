// What becomes of each piece of a reply spliced into a file (definition_splice.h), at every
// namespace depth: a redefinition of something the file defines in the same namespace (a changed
// `constexpr`, struct, alias, helper) replaces the file's definition in place; a piece the file
// has already (the same text, or a declaration of what it declares) is left out; a `#define` of
// a macro the file defines becomes an edit of its value; everything else (helpers, constants,
// types, includes, conditional blocks) is carried, with the namespaces it stands in.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cuda_source/splicing/namespace_chunks.h"
#include "cuda_source/splicing/splice_text.h"

namespace kb::cuda_source {

// One side of a splice, read: its text and its namespace structure.
struct SpliceSide {
  const std::string& text;
  NamespaceLayout layout;
  explicit SpliceSide(const std::string& t) : text(t), layout(read_namespace_layout(t)) {}
  std::string slice(Range r) const { return text.substr(r.begin, r.end - r.begin); }
};

// A piece of the reply the file does not have, to insert.
struct CarriedPiece {
  Range range;  // in the reply, its comments included
  std::vector<NamespaceName> path;
  bool directive = false;
  std::vector<std::string> names;  // what it declares, for finding its first use
  std::string label;               // for the edit list: "load_tile", "#include <cuda_fp16.h>"
};

// A definition of the reply that takes the place of one of the file's.
struct ReplacedPiece {
  Range reply;
  size_t original_begin = 0;  // where the file's definition (with its comment) began
};

struct ReplyPieces {
  std::vector<CarriedPiece> carried;  // in the reply's order
  std::vector<Edit> edits;            // the in-place replacements
  std::vector<ReplacedPiece> replaced;
  std::vector<std::string> replaced_names;
  std::vector<std::string> macro_edits;  // "NAME=VALUE", as DefinitionSplice::macro_edits
  // The keys ("ops::(anonymous) v kThreads") of what the reply defines or repeats: the file's
  // definitions of these are the reply's too, never removed as unused.
  std::set<std::string> reply_keys;
};

// The pieces of `reply` outside `spliced` (the launcher and kernels already paired with the file's),
// sorted out against `original`. `taken` are the file's ranges already edited.
ReplyPieces read_reply_pieces(const SpliceSide& original, const SpliceSide& reply, const std::vector<Range>& spliced,
                              const std::vector<Edit>& taken);

// The namespace part of an entity's key: "ops::(anonymous)"; linkage blocks do not count.
std::string namespace_key(const std::vector<NamespaceName>& path);

// A carried piece for the reply's range `r` (a new kernel): its path and names read from `reply`.
CarriedPiece carried_piece(const SpliceSide& reply, Range r, const std::string& name);

}  // namespace kb::cuda_source
