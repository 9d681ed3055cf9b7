// Small readers of a splice's result that the splice suites share (one definition, so that the
// unity build, which compiles the suites as one file, sees each once).
#pragma once

#include <string>

#include "cuda_source/splicing/definition_splice.h"

namespace kb::testing {

inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The splice's edit list, one line each.
inline std::string edits_of(const cuda_source::DefinitionSplice& splice) {
  std::string out;
  for (const auto& e : splice.edits) out += e + "\n";
  return out;
}

}  // namespace kb::testing
