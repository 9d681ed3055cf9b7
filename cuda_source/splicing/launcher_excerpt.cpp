#include "cuda_source/splicing/launcher_excerpt.h"

#include <algorithm>
#include <set>
#include <vector>

#include "cuda_source/splicing/definition_splice.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

struct PieceSpan {
  size_t begin = 0, end = 0;
  bool overlaps(const PieceSpan& o) const { return begin < o.end && o.begin < end; }
};

// Words that declare or qualify rather than name something the excerpt could need.
bool is_keyword(const std::string& word) {
  static const std::set<std::string> kWords = {"alignas",
                                               "alignof",
                                               "auto",
                                               "bool",
                                               "char",
                                               "class",
                                               "const",
                                               "constexpr",
                                               "decltype",
                                               "double",
                                               "enum",
                                               "explicit",
                                               "extern",
                                               "float",
                                               "friend",
                                               "inline",
                                               "int",
                                               "long",
                                               "namespace",
                                               "noexcept",
                                               "operator",
                                               "return",
                                               "short",
                                               "signed",
                                               "sizeof",
                                               "static",
                                               "static_assert",
                                               "struct",
                                               "template",
                                               "typedef",
                                               "typename",
                                               "union",
                                               "unsigned",
                                               "using",
                                               "virtual",
                                               "void",
                                               "volatile",
                                               "__align__",
                                               "__constant__",
                                               "__device__",
                                               "__forceinline__",
                                               "__global__",
                                               "__host__",
                                               "__launch_bounds__",
                                               "__managed__",
                                               "__noinline__",
                                               "__restrict__",
                                               "__shared__"};
  return kWords.count(word) > 0;
}

// The names a top-level declaration introduces: a struct, class, union or enum (and its
// enumerators), a typedef or alias, a variable or constant, a function. Not a parser: the
// identifiers at the declaration's own level that a definition, '=', ';', '[' or ',' follows.
std::set<std::string> declared_names(const std::vector<CodeToken>& tokens) {
  std::set<std::string> out;
  int depth = 0;
  bool is_enum = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const CodeToken& t = tokens[i];
    if (t.kind == CodeToken::punct) {
      if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
      else if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
      continue;
    }
    if (t.kind != CodeToken::identifier) continue;
    const bool first_in_list = i > 0 && (tokens[i - 1].text == "{" || tokens[i - 1].text == ",");
    if (is_enum && depth == 1 && first_in_list) out.insert(t.text);  // an enumerator
    if (depth != 0) continue;
    if (t.text == "struct" || t.text == "class" || t.text == "union" || t.text == "enum") {
      is_enum = is_enum || t.text == "enum";
      size_t j = i + 1;
      if (j < tokens.size() && (tokens[j].text == "class" || tokens[j].text == "struct")) ++j;  // enum class
      if (j < tokens.size() && tokens[j].kind == CodeToken::identifier && !is_keyword(tokens[j].text))
        out.insert(tokens[j].text);
      continue;
    }
    if (is_keyword(t.text) || i + 1 >= tokens.size()) continue;
    const std::string& next = tokens[i + 1].text;
    if (next == "=" || next == ";" || next == "[" || next == "," || next == "(" || next == "{") out.insert(t.text);
  }
  return out;
}

// A namespace or extern "C" block: where its body's braces are; nothing for other pieces.
std::optional<PieceSpan> block_body(const std::string& text, const SourceChunk& chunk) {
  if (chunk.kind != SourceChunk::declaration || chunk.end == 0 || text[chunk.end - 1] != '}') return std::nullopt;
  auto tokens = tokenize_code(text, chunk.begin, chunk.end);
  size_t i = 0;
  if (i < tokens.size() && tokens[i].text == "inline") ++i;
  if (i >= tokens.size()) return std::nullopt;
  const bool is_namespace = tokens[i].text == "namespace";
  const bool is_extern = tokens[i].text == "extern" && i + 1 < tokens.size() && tokens[i + 1].text == "{";
  if (!is_namespace && !is_extern) return std::nullopt;
  for (; i < tokens.size(); ++i) {
    if (tokens[i].text == "{") return PieceSpan{tokens[i].end, chunk.end - 1};
    if (tokens[i].text == ";" || tokens[i].text == "=") return std::nullopt;  // an alias
  }
  return std::nullopt;
}

class ExcerptBuilder {
 public:
  ExcerptBuilder(const std::string& text, std::vector<PieceSpan> core) : text_(text), core_(std::move(core)) {
    for (const auto& c : core_) add_names(c, used_);
  }

  // Chooses the pieces again until what they name stops growing: a helper's struct, a macro in
  // a constant's value.
  std::string build() {
    std::string out;
    for (int pass = 0; pass < 16; ++pass) {
      std::set<std::string> named = used_;
      out = region({0, text_.size()}, named);
      if (named.size() == used_.size()) break;
      used_ = std::move(named);
    }
    return out;
  }

 private:
  void add_names(PieceSpan s, std::set<std::string>& names) const {
    for (const auto& t : tokenize_code(text_, s.begin, s.end, true))
      if (t.kind == CodeToken::identifier) names.insert(t.text);
  }

  bool in_core(PieceSpan s) const {
    return std::any_of(core_.begin(), core_.end(), [&](const PieceSpan& c) { return c.overlaps(s); });
  }

  // The excerpt of the pieces in [span): each kept piece's text, in order; `named` receives
  // what the kept pieces name.
  std::string region(PieceSpan span, std::set<std::string>& named) const {
    std::vector<SourceChunk> chunks = top_level_chunks(text_.substr(span.begin, span.end - span.begin));
    for (auto& c : chunks) {
      c.begin += span.begin;
      c.end += span.begin;
    }
    std::vector<std::string> shown(chunks.size());  // empty: left out
    std::vector<Conditional> conditional(chunks.size(), Conditional::none);
    // Conditional blocks open at this point: their directives, and whether a kept piece is inside.
    struct Open {
      std::vector<size_t> directives;
      bool used = false;
    };
    std::vector<Open> open;
    auto keep = [&](size_t i, std::string piece) {
      shown[i] = std::move(piece);
      for (auto& o : open) o.used = true;
    };
    for (size_t i = 0; i < chunks.size(); ++i) {
      const SourceChunk& c = chunks[i];
      const PieceSpan s{c.begin, c.end};
      if (c.kind == SourceChunk::directive) {
        const Directive d = read_directive(text_, c);
        const Conditional kind = d.conditional();
        conditional[i] = kind;
        if (kind == Conditional::open) {
          open.push_back({{i}, false});
        } else if (kind == Conditional::middle && !open.empty()) {
          open.back().directives.push_back(i);
        } else if (kind == Conditional::close && !open.empty()) {
          Open block = std::move(open.back());
          open.pop_back();
          if (block.used) {
            for (size_t at : block.directives)
              shown[at] = text_.substr(chunks[at].begin, chunks[at].end - chunks[at].begin);
            keep(i, text_.substr(c.begin, c.end - c.begin));
          }
        } else if (d.keyword == "include" || ((d.keyword == "define" || d.keyword == "undef") && used_.count(d.name))) {
          add_names(s, named);
          keep(i, text_.substr(c.begin, c.end - c.begin));
        }
        continue;
      }
      if (auto body = block_body(text_, c)) {
        // A namespace: what it holds that is needed, inside the same namespace.
        std::string inner = region(*body, named);
        if (!inner.empty()) keep(i, text_.substr(c.begin, body->begin - c.begin) + "\n" + inner + "}");
        continue;
      }
      std::set<std::string> declares = declared_names(tokenize_code(text_, c.begin, c.end));
      const bool needed = in_core(s) || std::any_of(declares.begin(), declares.end(),
                                                    [&](const std::string& n) { return used_.count(n) > 0; });
      if (!needed) continue;
      add_names(s, named);
      const size_t from = leading_comment_begin(text_, c.begin);
      keep(i, text_.substr(from, c.end - from));
    }
    std::string out;
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (shown[i].empty()) continue;
      out += shown[i] + "\n";
      size_t next = i + 1;
      while (next < chunks.size() && shown[next].empty()) ++next;
      // A blank line between pieces, but not between directives, nor inside a conditional's edges.
      const bool tight = next < chunks.size() &&
                         ((chunks[i].kind == SourceChunk::directive && chunks[next].kind == SourceChunk::directive) ||
                          conditional[i] == Conditional::open || conditional[i] == Conditional::middle ||
                          conditional[next] == Conditional::middle || conditional[next] == Conditional::close);
      if (!tight) out += "\n";
    }
    return out;
  }

  const std::string& text_;
  std::vector<PieceSpan> core_;
  std::set<std::string> used_;
};

}  // namespace

std::optional<std::string> launcher_excerpt(const std::string& text, const std::string& launcher,
                                            const std::string& path) {
  ScanResult scan;
  scan_source(text, path, scan);
  std::vector<PieceSpan> core;
  std::set<std::string> kernels;
  for (const auto& l : scan.launchers) {
    if (l.name != launcher && unqualified_name(l.name) != unqualified_name(launcher)) continue;
    core.push_back({l.begin, l.end});
    for (const auto& launch : l.launches) kernels.insert(launch.kernel);
  }
  if (core.empty()) return std::nullopt;
  for (const auto& k : scan.kernels)
    if (k.is_definition && kernels.count(k.name)) core.push_back({k.begin, k.end});
  std::string out = ExcerptBuilder(text, std::move(core)).build();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out + "\n";
}

}  // namespace kb::cuda_source
