// The namespace structure of a source file: its namespace and extern "C" blocks, nested, and the
// pieces inside each (declarations, definitions, directives) with the namespaces they stand in.
// The source scanner's top-level pieces make a namespace one piece; a splice that carries a
// helper out of a reply, or replaces a constant in place, needs the pieces inside it.
#pragma once

#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// What opens one level: "ops" for `namespace ops {`, "" for an anonymous namespace (all of a
// file's anonymous namespaces are one namespace), `extern "C"` for a linkage block.
using NamespaceName = std::string;

inline bool is_linkage_block(const NamespaceName& name) { return name.starts_with("extern"); }

struct NamespaceBlock {
  // `namespace a::b {` opens two levels in one block: {"a", "b"}.
  std::vector<NamespaceName> names;
  size_t begin = 0;                     // its first token ("namespace", "inline" or "extern")
  size_t body_begin = 0, body_end = 0;  // between its braces
  size_t end = 0;                       // one past its '}'
};

struct NamespacedChunk {
  SourceChunk chunk;
  std::vector<size_t> blocks;  // indices into NamespaceLayout::blocks, outermost first
};

struct NamespaceLayout {
  std::vector<NamespaceBlock> blocks;
  // Every piece that is not itself a namespace or linkage block, at any depth, in file order.
  std::vector<NamespacedChunk> chunks;

  // The levels a chunk stands in, outermost first: {"ops", ""} for ops' anonymous namespace.
  std::vector<NamespaceName> path(const NamespacedChunk& chunk) const;
  // The blocks whose body holds byte `offset`, outermost first; and the levels they open.
  std::vector<size_t> blocks_at(size_t offset) const;
  std::vector<NamespaceName> path_at(size_t offset) const;
};

NamespaceLayout read_namespace_layout(const std::string& text);

// "namespace ops {", "namespace {", "extern \"C\" {"; and the line that closes it.
std::string namespace_opener(const NamespaceName& name);
std::string namespace_closer(const NamespaceName& name);

}  // namespace kb::cuda_source
