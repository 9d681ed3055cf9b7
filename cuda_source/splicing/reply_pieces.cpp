#include "cuda_source/splicing/reply_pieces.h"

#include <algorithm>
#include <map>
#include <utility>

#include "cuda_source/splicing/declared_entities.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::cuda_source {
namespace {

// A piece with the comment above it and one that ends its last line.
Range piece_range(const std::string& text, const SourceChunk& c) {
  return with_trailing_comment(text, with_leading_comment(text, {c.begin, c.end}));
}

// What tells a copy of a piece from a change: its code without spacing; a directive's with its
// spacing made one (`#define X (1)` is not `#define X(1)`).
std::string code_of(const std::string& text, const SourceChunk& c) {
  const std::string piece = text.substr(c.begin, c.end - c.begin);
  return c.kind == SourceChunk::directive ? normalized(piece) : compact_code(piece);
}

// The file's pieces by what they define and declare.
struct OriginalIndex {
  std::map<std::string, std::vector<size_t>> definitions;  // key -> chunk indices, in file order
  std::vector<std::set<std::string>> defined_by;           // per chunk: the keys it defines
  std::set<std::string> declared;                          // every key declared or defined
  std::set<std::string> texts;                             // every piece, as code_of
  std::map<std::string, std::string> defines;              // object-like macro -> value
};

OriginalIndex index_of(const SpliceSide& original) {
  OriginalIndex index;
  const auto& chunks = original.layout.chunks;
  index.defined_by.resize(chunks.size());
  for (size_t o = 0; o < chunks.size(); ++o) {
    const SourceChunk& c = chunks[o].chunk;
    index.texts.insert(code_of(original.text, c));
    const std::string ns = namespace_key(original.layout.path(chunks[o]));
    for (const auto& e : declared_entities(original.text, c)) {
      const std::string key = ns + " " + e.key();
      index.declared.insert(key);
      if (e.defines_once()) index.defined_by[o].insert(key);
    }
    for (const auto& key : index.defined_by[o]) index.definitions[key].push_back(o);
  }
  for (const auto& d : top_level_defines(original.text)) index.defines[d.name] = d.value(original.text);
  return index;
}

std::string unqualified(const std::string& name) {
  const size_t at = name.rfind("::");
  return at == std::string::npos ? name : name.substr(at + 2);
}

// "ops" <-> "ops::(anonymous)": the namespace whose names collide with this one's.
std::string beside_anonymous(const std::string& ns) {
  static const std::string kAnonymous = "(anonymous)";
  if (ns == kAnonymous) return "";
  if (ns.size() > kAnonymous.size() + 2 && ns.ends_with("::" + kAnonymous))
    return ns.substr(0, ns.size() - kAnonymous.size() - 2);
  return ns.empty() ? kAnonymous : ns + "::" + kAnonymous;
}

std::vector<std::string> prefixed(const std::string& ns, const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) out.push_back(ns + " " + k);
  return out;
}

std::string short_label(const std::string& text) {
  const std::string n = normalized(text);
  return n.size() <= 48 ? n : n.substr(0, 45) + "...";
}

class ReplyReader {
 public:
  ReplyReader(const SpliceSide& original, const SpliceSide& reply, std::vector<Range> spliced, std::vector<Edit> taken)
      : original_(original),
        reply_(reply),
        index_(index_of(original)),
        skip_(std::move(spliced)),
        taken_(std::move(taken)) {}

  ReplyPieces read() {
    const auto& chunks = reply_.layout.chunks;
    for (size_t i = 0; i < chunks.size(); ++i) {
      const SourceChunk& c = chunks[i].chunk;
      if (skipped({c.begin, c.end})) continue;
      if (c.kind == SourceChunk::directive) read_directive_at(i);
      else read_declaration(chunks[i]);
    }
    return std::move(out_);
  }

 private:
  bool skipped(Range r) const {
    return std::any_of(skip_.begin(), skip_.end(), [&](const Range& s) { return s.overlaps(r); });
  }

  void carry(Range r, const NamespacedChunk& at, bool directive, std::vector<std::string> names, std::string label) {
    out_.carried.push_back({r, reply_.layout.path(at), directive, std::move(names), std::move(label)});
  }

  // A conditional block the file lacks is carried whole (unless the launcher or a kernel is in it:
  // then it is looked into); one the file has is looked into. A #define of a macro the file
  // defines is an edit of the file's value.
  void read_directive_at(size_t i) {
    const auto& chunks = reply_.layout.chunks;
    const SourceChunk& c = chunks[i].chunk;
    const std::string text = code_of(reply_.text, c);
    const Directive d = read_directive(reply_.text, c);
    const Conditional kind = d.conditional();
    if (kind == Conditional::open && !index_.texts.count(text)) {
      int depth = 0;
      std::vector<std::string> names;
      for (size_t j = i; j < chunks.size(); ++j) {
        const SourceChunk& inner = chunks[j].chunk;
        for (const auto& e : declared_entities(reply_.text, inner)) names.push_back(unqualified(e.name));
        if (inner.kind != SourceChunk::directive || chunks[j].blocks != chunks[i].blocks) continue;
        const Directive id = read_directive(reply_.text, inner);
        if (id.keyword == "define") names.push_back(id.name);
        if (id.conditional() == Conditional::open) ++depth;
        if (id.conditional() != Conditional::close || --depth > 0) continue;
        const Range block{c.begin, inner.end};
        if (skipped(block)) return;
        carry(with_leading_comment(reply_.text, block), chunks[i], true, std::move(names),
              short_label(reply_.slice({c.begin, c.end})) + " block");
        skip_.push_back(block);
        return;
      }
      return;  // never closed: not carried
    }
    if (kind != Conditional::none) return;  // the file's own block structure
    if (d.is_object_like_define()) {
      auto it = index_.defines.find(d.name);
      if (it != index_.defines.end()) {
        const std::string value = d.value(reply_.text);
        if (value != it->second) out_.macro_edits.push_back(d.name + "=" + value);
        return;
      }
    }
    if (index_.texts.count(text)) return;
    std::vector<std::string> names;
    if (d.keyword == "define") names.push_back(d.name);
    carry(with_leading_comment(reply_.text, {c.begin, c.end}), chunks[i], true, std::move(names),
          short_label(reply_.slice({c.begin, c.end})));
  }

  void read_declaration(const NamespacedChunk& at) {
    const SourceChunk& c = at.chunk;
    const std::string text = code_of(reply_.text, c);
    const std::string ns = namespace_key(reply_.layout.path(at));
    const auto entities = declared_entities(reply_.text, c);
    std::vector<std::string> defined, names;  // defined: keys without the namespace
    std::string label;
    for (const auto& e : entities) {
      out_.reply_keys.insert(ns + " " + e.key());
      out_.reply_keys.insert(beside_anonymous(ns) + " " + e.key());
      if (e.defines_once()) defined.push_back(e.key());
      if (!e.name.starts_with("operator")) names.push_back(unqualified(e.name));
      if (e.kind != DeclaredEntity::using_declaration && e.kind != DeclaredEntity::using_directive)
        label += (label.empty() ? "" : ", ") + e.name;
    }
    if (label.empty()) label = short_label(reply_.slice({c.begin, c.end}));
    // A name in an anonymous namespace and the same name beside it collide wherever they are
    // used, so a reply that left out (or added) the file's anonymous namespace redefines it too.
    for (const std::string& in : {ns, beside_anonymous(ns)})
      if (!defined.empty() && replaces_in_place(c, text, prefixed(in, defined), label)) return;
    if (index_.texts.count(text)) return;  // the file has it already
    const bool declares_only = !entities.empty() && std::none_of(entities.begin(), entities.end(),
                                                                 [](const auto& e) { return e.is_definition; });
    if (declares_only && std::all_of(entities.begin(), entities.end(),
                                     [&](const auto& e) { return index_.declared.count(ns + " " + e.key()) > 0; }))
      return;  // a declaration of what the file declares or defines
    carry(piece_range(reply_.text, c), at, false, std::move(names), std::move(label));
  }

  // A definition of what one of the file's pieces defines, exactly: that piece gives way to it (or
  // stays, when the text is the same). True when so. A piece that defines part of what the file's
  // piece defines (`a` of `constexpr int a = 1, b = 2;`) is neither: carried, it fails to compile
  // with an error that names the duplicate, which a repair prompt shows.
  bool replaces_in_place(const SourceChunk& c, const std::string& text, const std::vector<std::string>& defined,
                         const std::string& label) {
    auto it = index_.definitions.find(defined.front());
    if (it == index_.definitions.end()) return false;
    // The n-th definition of a key in the reply is paired with the file's n-th (#if branches).
    const size_t nth = seen_[defined.front()]++;
    const size_t o = it->second[std::min(nth, it->second.size() - 1)];
    if (std::set<std::string>(defined.begin(), defined.end()) != index_.defined_by[o]) return false;
    const SourceChunk& old_chunk = original_.layout.chunks[o].chunk;
    if (code_of(original_.text, old_chunk) == text) return true;
    const Range old = piece_range(original_.text, old_chunk);
    if (std::any_of(taken_.begin(), taken_.end(), [&](const Edit& e) { return e.range.overlaps(old); })) return false;
    const Range mine = piece_range(reply_.text, c);
    Edit edit{old, reply_.slice(mine)};
    taken_.push_back(edit);
    out_.edits.push_back(std::move(edit));
    out_.replaced.push_back({mine, old.begin});
    out_.replaced_names.push_back(label);
    return true;
  }

  const SpliceSide& original_;
  const SpliceSide& reply_;
  const OriginalIndex index_;
  std::vector<Range> skip_;
  std::vector<Edit> taken_;
  std::map<std::string, size_t> seen_;
  ReplyPieces out_;
};

}  // namespace

std::string namespace_key(const std::vector<NamespaceName>& path) {
  std::string out;
  for (const auto& name : path) {
    if (is_linkage_block(name)) continue;
    out += (out.empty() ? "" : "::") + (name.empty() ? std::string("(anonymous)") : name);
  }
  return out;
}

ReplyPieces read_reply_pieces(const SpliceSide& original, const SpliceSide& reply, const std::vector<Range>& spliced,
                              const std::vector<Edit>& taken) {
  return ReplyReader(original, reply, spliced, taken).read();
}

CarriedPiece carried_piece(const SpliceSide& reply, Range r, const std::string& name) {
  return {with_leading_comment(reply.text, r), reply.layout.path_at(r.begin), false, {name}, name};
}

}  // namespace kb::cuda_source
