// How many elements a kernel's pointer parameters reach, guessed from its body: the size
// parameters that bound the indices it subscripts them with. `if (i < n) y[i] = ...` gives y the
// extent {n}; `out[c * rows + r]` under `r < rows && c < cols` gives {rows, cols}. What `init`
// writes as a buffer's count, instead of the product of every integer parameter.
// A guess from the text, not an analysis: an index it cannot trace leaves the extent unknown.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

struct BufferExtent {
  bool known = false;
  std::vector<std::string> sizes;  // integer parameters whose product bounds the index, in parameter order
};

// For each named pointer parameter of `params`: its extent from `body` (the kernel's text between
// its braces). Integer parameters (by their type) are the size names an extent may use.
std::map<std::string, BufferExtent> buffer_extents(const std::string& body, const std::vector<ScannedParam>& params);

}  // namespace kb::cuda_source
