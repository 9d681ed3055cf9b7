#include "cuda_source/splicing/piece_placement.h"

#include <algorithm>
#include <cstddef>
#include <set>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

constexpr size_t kNowhere = static_cast<size_t>(-1);

std::set<std::string> identifiers(const std::string& text, Range r) {
  std::set<std::string> out;
  for (const auto& t : tokenize_code(text, r.begin, r.end, true))  // a macro named in an #if counts
    if (t.kind == CodeToken::identifier) out.insert(t.text);
  return out;
}

bool names_any(const std::set<std::string>& used, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return used.count(n) > 0; });
}

// Where in the file each carried piece must be by: see the header.
std::vector<size_t> anchors(const SpliceSide& reply, const std::vector<CarriedPiece>& carried,
                            const std::vector<ReplacedPiece>& replaced, size_t fallback) {
  std::vector<std::set<std::string>> replaced_uses, carried_uses;
  for (const auto& r : replaced) replaced_uses.push_back(identifiers(reply.text, r.reply));
  for (const auto& c : carried) carried_uses.push_back(identifiers(reply.text, c.range));
  std::vector<size_t> out(carried.size(), kNowhere);
  for (size_t i = carried.size(); i-- > 0;) {
    size_t first_use = kNowhere, first_after = kNowhere;
    for (size_t r = 0; r < replaced.size(); ++r) {
      if (replaced[r].reply.begin < carried[i].range.end) continue;
      first_after = std::min(first_after, replaced[r].original_begin);
      if (names_any(replaced_uses[r], carried[i].names)) first_use = std::min(first_use, replaced[r].original_begin);
    }
    for (size_t j = i + 1; j < carried.size(); ++j) {
      first_after = std::min(first_after, out[j]);
      if (names_any(carried_uses[j], carried[i].names)) first_use = std::min(first_use, out[j]);
    }
    out[i] = first_use != kNowhere ? first_use : first_after != kNowhere ? first_after : fallback;
  }
  return out;
}

// A piece's text from the start of its line when only indentation stands before it.
std::string piece_text(const SpliceSide& reply, Range r) {
  size_t b = line_begin(reply.text, r.begin);
  if (reply.text.find_first_not_of(" \t", b) < r.begin) b = r.begin;
  return reply.slice({b, r.end});
}

struct Placement {
  size_t offset = 0;
  bool mid_line = false;            // the file's line goes on before it (`namespace a { namespace b {`)
  std::vector<NamespaceName> wrap;  // the namespaces to open around it
};

Placement placement(const SpliceSide& original, size_t anchor, const std::vector<NamespaceName>& path) {
  const auto& blocks = original.layout.blocks;
  const std::vector<size_t> chain = original.layout.blocks_at(anchor);
  size_t shared = 0, k = 0;  // names of `path` the file has open at the anchor; blocks they fill
  for (; k < chain.size(); ++k) {
    const auto& names = blocks[chain[k]].names;
    if (shared + names.size() > path.size() ||
        !std::equal(names.begin(), names.end(), path.begin() + static_cast<std::ptrdiff_t>(shared)))
      break;
    shared += names.size();
  }
  const size_t target =
      k == chain.size() ? anchor
                        : with_leading_comment(original.text, {blocks[chain[k]].begin, blocks[chain[k]].begin}).begin;
  const size_t floor = k == 0 ? 0 : blocks[chain[k - 1]].body_begin;
  Placement p{line_begin(original.text, target),
              false,
              {path.begin() + static_cast<std::ptrdiff_t>(shared), path.end()}};
  if (p.offset < floor) p = {target, true, p.wrap};
  return p;
}

}  // namespace

std::vector<Edit> place_carried_pieces(const SpliceSide& original, const SpliceSide& reply,
                                       const std::vector<CarriedPiece>& carried,
                                       const std::vector<ReplacedPiece>& replaced, size_t fallback) {
  const std::vector<size_t> at = anchors(reply, carried, replaced, fallback);
  std::vector<Placement> places;
  for (size_t i = 0; i < carried.size(); ++i) places.push_back(placement(original, at[i], carried[i].path));
  std::vector<Edit> out;
  std::set<size_t> done;
  for (size_t i = 0; i < carried.size(); ++i) {
    const size_t offset = places[i].offset;
    if (!done.insert(offset).second) continue;
    std::vector<size_t> here;  // the pieces that go at this offset, in the reply's order
    for (size_t j = i; j < carried.size(); ++j)
      if (places[j].offset == offset) here.push_back(j);
    std::string text = places[i].mid_line ? "\n" : "";
    for (size_t g = 0; g < here.size();) {
      const auto& wrap = places[here[g]].wrap;
      size_t end = g;
      while (end < here.size() && places[here[end]].wrap == wrap) ++end;
      for (const auto& name : wrap) text += namespace_opener(name) + "\n";
      for (size_t m = g; m < end; ++m) {
        const CarriedPiece& piece = carried[here[m]];
        text += piece_text(reply, piece.range) + "\n";
        const bool next_directive = m + 1 < end && carried[here[m + 1]].directive;
        const bool closes = m + 1 == end && !wrap.empty();
        if (!(piece.directive && next_directive) && !closes) text += "\n";
      }
      for (auto name = wrap.rbegin(); name != wrap.rend(); ++name) text += namespace_closer(*name) + "\n";
      if (!wrap.empty()) text += "\n";
      g = end;
    }
    out.push_back({{offset, offset}, text});
  }
  return out;
}

}  // namespace kb::cuda_source
