#include "cuda_source/splicing/namespace_chunks.h"

#include <optional>

#include "cuda_source/splicing/splice_text.h"
#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

// The block a piece opens, when it is `[inline] namespace NAME[::NAME] {` or `extern "..." {`.
std::optional<NamespaceBlock> block_of(const std::string& text, const SourceChunk& chunk) {
  if (chunk.kind != SourceChunk::declaration || chunk.end == 0 || text[chunk.end - 1] != '}') return std::nullopt;
  auto tokens = tokenize_code(text, chunk.begin, chunk.end);  // string literals are skipped
  size_t i = 0;
  if (i < tokens.size() && tokens[i].text == "inline") ++i;
  if (i + 1 >= tokens.size()) return std::nullopt;
  NamespaceBlock block;
  block.begin = chunk.begin;
  block.end = chunk.end;
  block.body_end = chunk.end - 1;
  if (tokens[i].text == "extern" && tokens[i + 1].text == "{") {
    block.names.push_back(normalized(text.substr(tokens[i].begin, tokens[i + 1].begin - tokens[i].begin)));
    block.body_begin = tokens[i + 1].end;
    return block;
  }
  if (tokens[i].text != "namespace") return std::nullopt;
  for (++i; i < tokens.size(); ++i) {
    const CodeToken& t = tokens[i];
    if (t.text == "{") {
      if (block.names.empty()) block.names.push_back("");
      block.body_begin = t.end;
      return block;
    }
    if (t.kind == CodeToken::identifier && t.text != "inline") block.names.push_back(t.text);
    else if (t.text != "::") return std::nullopt;  // an alias (`namespace cg = ...;`) or not a namespace
  }
  return std::nullopt;
}

void read_level(const std::string& text, size_t begin, size_t end, const std::vector<size_t>& enclosing,
                NamespaceLayout& layout) {
  for (SourceChunk c : top_level_chunks(text.substr(begin, end - begin))) {
    c.begin += begin;
    c.end += begin;
    if (auto block = block_of(text, c)) {
      layout.blocks.push_back(*block);
      std::vector<size_t> inner = enclosing;
      inner.push_back(layout.blocks.size() - 1);
      read_level(text, block->body_begin, block->body_end, inner, layout);
      continue;
    }
    layout.chunks.push_back({c, enclosing});
  }
}

}  // namespace

std::vector<NamespaceName> NamespaceLayout::path(const NamespacedChunk& chunk) const {
  std::vector<NamespaceName> out;
  for (size_t b : chunk.blocks) out.insert(out.end(), blocks[b].names.begin(), blocks[b].names.end());
  return out;
}

std::vector<size_t> NamespaceLayout::blocks_at(size_t offset) const {
  std::vector<size_t> out;  // blocks are listed outer before inner, so this is outermost first
  for (size_t b = 0; b < blocks.size(); ++b)
    if (blocks[b].body_begin <= offset && offset < blocks[b].body_end) out.push_back(b);
  return out;
}

std::vector<NamespaceName> NamespaceLayout::path_at(size_t offset) const { return path({{}, blocks_at(offset)}); }

NamespaceLayout read_namespace_layout(const std::string& text) {
  NamespaceLayout layout;
  read_level(text, 0, text.size(), {}, layout);
  return layout;
}

std::string namespace_opener(const NamespaceName& name) {
  if (is_linkage_block(name)) return name + " {";
  return name.empty() ? "namespace {" : "namespace " + name + " {";
}

std::string namespace_closer(const NamespaceName& name) {
  if (is_linkage_block(name)) return "}  // " + name;
  return name.empty() ? "}  // namespace" : "}  // namespace " + name;
}

}  // namespace kb::cuda_source
