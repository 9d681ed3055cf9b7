#include "cuda_source/splicing/unused_definitions.h"

#include <algorithm>
#include <map>

#include "cuda_source/splicing/declared_entities.h"
#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

using Counts = std::map<std::string, int>;

void count_identifiers(const std::string& text, Range r, Counts& counts, int sign) {
  for (const auto& t : tokenize_code(text, r.begin, r.end, true))
    if (t.kind == CodeToken::identifier) counts[t.text] += sign;
}

// A definition the splice may remove: what it declares, and where it is.
struct Candidate {
  Range piece;    // the definition itself
  Range removal;  // what goes: its comment, its lines when it has them to itself
  std::vector<std::string> names;
  bool removed = false;
};

// Internal definitions of functions, variables and types, each alone in its piece.
std::vector<Candidate> removable_definitions(const SpliceSide& original, const std::vector<Edit>& edits,
                                             const std::set<std::string>& reply_keys) {
  std::vector<Candidate> out;
  const std::string& text = original.text;
  for (const auto& chunk : original.layout.chunks) {
    const auto path = original.layout.path(chunk);
    const bool anonymous = std::find(path.begin(), path.end(), "") != path.end();
    const std::string ns = namespace_key(path);
    const auto entities = declared_entities(text, chunk.chunk);
    const bool removable = !entities.empty() && std::all_of(entities.begin(), entities.end(), [&](const auto& e) {
      return e.defines_once() && e.kind != DeclaredEntity::namespace_alias && (anonymous || e.is_static) &&
             !reply_keys.count(ns + " " + e.key()) && e.name.find("::") == std::string::npos;
    });
    if (!removable) continue;
    Candidate c;
    c.piece = {chunk.chunk.begin, chunk.chunk.end};
    c.removal = with_trailing_comment(text, with_leading_comment(text, c.piece));
    const size_t eol = std::min(text.find('\n', c.removal.end), text.size());
    const bool own_lines = text.find_first_not_of(" \t", line_begin(text, c.removal.begin)) >= c.removal.begin &&
                           text.find_first_not_of(" \t\r", c.removal.end) >= eol;
    if (own_lines) c.removal = whole_lines(text, c.removal);
    if (std::any_of(edits.begin(), edits.end(), [&](const Edit& e) {
          return e.range.overlaps(c.removal) || (e.range.begin > c.removal.begin && e.range.begin < c.removal.end);
        }))
      continue;
    for (const auto& e : entities) c.names.push_back(e.name);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

UnusedDefinitions unused_definitions(const SpliceSide& original, const std::string& path,
                                     const std::vector<Edit>& edits, const std::set<std::string>& reply_keys) {
  UnusedDefinitions out;
  std::vector<Candidate> found = removable_definitions(original, edits, reply_keys);
  if (found.empty()) return out;
  // What the replaced definitions named, and every name the spliced file still writes.
  Counts named_before, counts;
  for (const auto& e : edits)
    if (e.range.end > e.range.begin) count_identifiers(original.text, e.range, named_before, 1);
  const std::string spliced = apply_edits(path, original.text, edits);
  count_identifiers(spliced, {0, spliced.size()}, counts, 1);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& c : found) {
      if (c.removed) continue;
      Counts own;
      count_identifiers(original.text, c.piece, own, 1);
      const bool unused = std::all_of(c.names.begin(), c.names.end(), [&](const std::string& n) {
        return named_before[n] > 0 && counts[n] - own[n] <= 0;
      });
      const bool apart = std::none_of(out.removals.begin(), out.removals.end(),
                                      [&](const Edit& e) { return e.range.overlaps(c.removal); });
      if (!unused || !apart) continue;
      c.removed = changed = true;
      count_identifiers(original.text, c.piece, counts, -1);
      count_identifiers(original.text, c.piece, named_before, 1);
      out.removals.push_back({c.removal, ""});
      out.names.insert(out.names.end(), c.names.begin(), c.names.end());
    }
  }
  return out;
}

}  // namespace kb::cuda_source
