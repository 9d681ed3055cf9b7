#include "cuda_source/reading/buffer_uses.h"

#include <algorithm>
#include <set>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

// Helpers are followed this many calls deep; a recursive helper stops there.
constexpr int kMaxDepth = 4;

// The tokens with the operators that decide a use joined (`+=`, `<<=`, `++`, `==`, `->` already is).
std::vector<CodeToken> use_tokens(const std::string& text, size_t begin, size_t end) {
  static const std::set<std::string> joined = {"+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>",
                                               "<<=", ">>=", "++", "--", "==", "!=", "<=", ">=", "&&", "||"};
  std::vector<CodeToken> out;
  for (auto& t : tokenize_code(text, begin, end)) {
    if (!out.empty() && t.kind == CodeToken::punct && out.back().kind == CodeToken::punct &&
        out.back().end == t.begin && joined.count(out.back().text + t.text)) {
      out.back().text += t.text;
      out.back().end = t.end;
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool is_compound(const std::string& op) {
  return op.size() >= 2 && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=";
}

bool statement_keyword(const std::string& s) {
  static const std::set<std::string> words = {"if",     "while",  "for",     "switch",
                                              "return", "sizeof", "alignof", "decltype"};
  return words.count(s) > 0;
}

bool is_cast(const std::string& s) {
  return s == "reinterpret_cast" || s == "static_cast" || s == "const_cast" || s == "__builtin_assume_aligned";
}

// What a call the analysis knows without reading it does to its argument `index`.
struct KnownCall {
  bool known = false, read = false, write = false;
};
KnownCall known_call(const std::string& name, size_t index) {
  if (name.starts_with("atomic")) return {true, index == 0, index == 0};  // atomicAdd(&out[i], v)
  static const std::set<std::string> loads = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"};
  if (loads.count(name)) return {true, true, false};
  static const std::set<std::string> stores = {"__stcg", "__stcs", "__stwb", "__stwt"};
  if (stores.count(name)) return {true, false, index == 0};
  if (name == "load_matrix_sync") return {true, index == 1, false};  // wmma::load_matrix_sync(frag, A + off, ld)
  if (name == "store_matrix_sync") return {true, false, index == 0};
  if (name == "memcpy" || name == "__pipeline_memcpy_async" || name == "memcpy_async")
    return {true, index == 1, index == 0};
  if (name == "memset") return {true, false, index == 0};
  if (name == "__syncthreads" || name == "printf" || name == "assert") return {true, false, false};
  return {};
}

struct UseEvent {
  size_t pos = 0;
  bool read = false, write = false;
  BufferAccess at;
};

// What a helper does with each of its pointer parameters, by (text, begin) of its definition.
struct HelperUses {
  std::map<std::string, std::vector<UseEvent>> events;
  std::map<std::string, std::string> unseen;
};
using HelperCache = std::map<std::pair<const std::string*, size_t>, HelperUses>;

class UseReader {
 public:
  UseReader(const FunctionText& f, const FunctionLookup& lookup, int depth, HelperCache* helpers)
      : f_(f),
        lookup_(lookup),
        depth_(depth),
        helpers_(helpers),
        t_(use_tokens(*f.text, f.begin, std::min(f.end, f.text->size()))) {
    for (const auto& p : f.params)
      if (!p.name.empty() && p.type.find('*') != std::string::npos) root_[p.name] = p.name;
  }

  std::map<std::string, BufferUses> read() {
    size_t body = 0;
    for (int depth = 0; body < t_.size(); ++body) {
      if (t_[body].text == "(") ++depth;
      else if (t_[body].text == ")") --depth;
      else if (t_[body].text == "{" && depth == 0) break;
    }
    for (size_t i = body + 1; i < t_.size(); ++i) {
      if (t_[i].kind != CodeToken::identifier || qualified(i)) continue;
      if (i + 1 < t_.size() && t_[i + 1].text == "=") maybe_alias(i);
      if (bound_.count(i)) continue;
      if (auto e = element_of_.find(t_[i].text); e != element_of_.end()) {
        element(e->second, i, i + 1, i);
        continue;
      }
      auto r = root_.find(t_[i].text);
      if (r != root_.end()) use_at(i, r->second);
    }
    std::map<std::string, BufferUses> out;
    for (const auto& p : f_.params) {
      if (p.name.empty() || p.type.find('*') == std::string::npos) continue;
      BufferUses u;
      auto& ev = events_[p.name];
      std::stable_sort(ev.begin(), ev.end(), [](const UseEvent& a, const UseEvent& b) { return a.pos < b.pos; });
      for (const auto& e : ev) {
        if (e.read && !u.first_read) u.first_read = e.at;
        if (e.write && !u.first_write) u.first_write = e.at;
        if (e.read && e.write && !u.read_and_written) u.read_and_written = e.at;
      }
      if (!u.read_and_written)  // read and written in one statement: `C[i] = a * s + b * C[i]`
        for (const auto& r : ev)
          for (const auto& w : ev)
            if (!u.read_and_written && r.read && w.write && r.at.line == w.at.line && r.at.file == w.at.file)
              u.read_and_written = r.at;
      u.read_before_written = !ev.empty() && ev.front().read;
      if (auto s = unseen_.find(p.name); s != unseen_.end()) u.unseen = s->second;
      out[p.name] = u;
    }
    return out;
  }

 private:
  bool qualified(size_t i) const {
    return i > 0 && (t_[i - 1].text == "." || t_[i - 1].text == "->" || t_[i - 1].text == "::");
  }

  size_t closing(size_t open) const {
    const std::string& o = t_[open].text;
    const std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
    int depth = 0;
    for (size_t i = open; i < t_.size(); ++i) {
      if (t_[i].text == o) ++depth;
      else if (t_[i].text == c && --depth == 0) return i;
    }
    return t_.size();
  }

  // `*` at k dereferences what follows: it comes after an operator or an opening bracket, not a value.
  bool unary_star(size_t k) const {
    if (t_[k].text != "*") return false;
    if (k == 0) return true;
    const auto& p = t_[k - 1];
    if (p.text == ")") {  // `for (...) *p = 0`: after a statement's condition, not after a value
      int depth = 0;
      for (size_t o = k - 1; o-- > 0;) {
        if (t_[o + 1].text == ")") ++depth;
        if (t_[o + 1].text == "(" && --depth == 0)
          return t_[o].text == "for" || t_[o].text == "if" || t_[o].text == "while";
      }
      return false;
    }
    return (p.kind == CodeToken::punct && p.text != "]") || p.text == "return" || p.text == "else";
  }

  // The end of the statement from `from`: its ';' (or an unbalanced closing bracket).
  size_t statement_end(size_t from) const {
    int depth = 0;
    for (size_t i = from; i < t_.size(); ++i) {
      const std::string& x = t_[i].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      else if ((x == ")" || x == "]" || x == "}") && --depth < 0) return i;
      else if (x == ";" && depth == 0) return i;
    }
    return t_.size();
  }

  BufferAccess access_at(size_t i) const { return access_at_offset(*f_.text, f_.file, t_[i].begin); }

  void note(const std::string& root, size_t pos, bool read, bool write, size_t at) {
    events_[root].push_back({pos, read, write, access_at(at)});
  }

  // A local pointer defined from a tracked one: `float* row = C + i * n`, `auto p = &C[i]`,
  // `const float4* v = reinterpret_cast<const float4*>(x)`. The target at i, its '=' at i + 1.
  void maybe_alias(size_t i) {
    const std::string& before = i > 0 ? t_[i - 1].text : "";
    // `float& acc = out[i];`: a reference to one element; its uses are the element's.
    if (before == "&" && i > 1 && t_[i - 2].kind == CodeToken::identifier && i + 3 < t_.size() &&
        t_[i + 2].kind == CodeToken::identifier && root_.count(t_[i + 2].text) && t_[i + 3].text == "[" &&
        after_element(i + 3) == statement_end(i + 2)) {
      element_of_[t_[i].text] = root_.at(t_[i + 2].text);
      bound_.insert(i);
      bound_.insert(i + 2);  // binding a reference reads or writes nothing
      return;
    }
    if (before != "*" && before != "auto" && before != "const" && before != "__restrict__" && !root_.count(t_[i].text))
      return;
    const size_t end = statement_end(i + 2);
    for (size_t k = i + 2; k < end; ++k) {
      if (t_[k].kind != CodeToken::identifier || qualified(k) || !root_.count(t_[k].text)) continue;
      const bool subscripted = k + 1 < end && t_[k + 1].text == "[";
      const bool address = subscripted && k > 0 && t_[k - 1].text == "&";
      const bool deref = (k > 0 && unary_star(k - 1)) || (k + 1 < end && t_[k + 1].text == "->");
      if ((subscripted && !address) || deref) continue;  // a value read from it, not a pointer into it
      root_[t_[i].text] = root_.at(t_[k].text);
      return;
    }
  }

  // Skips what follows an element (`.x`, `[j]`, `->f`) to the token that decides its use.
  size_t after_element(size_t k) const {
    while (k < t_.size()) {
      if ((t_[k].text == "." || t_[k].text == "->") && k + 1 < t_.size()) k += 2;
      else if (t_[k].text == "[") k = closing(k) + 1;
      else break;
    }
    return k;
  }

  // The element that tokens [first, next) name is read, written, or both, by what follows it.
  void element(const std::string& root, size_t first, size_t next, size_t at) {
    next = after_element(next);
    const std::string op = next < t_.size() ? t_[next].text : "";
    const std::string prefix = first > 0 ? t_[first - 1].text : "";
    if (op == "=") note(root, statement_end(next), false, true, at);
    else if (is_compound(op) || op == "++" || op == "--" || prefix == "++" || prefix == "--")
      note(root, at, true, true, at);
    else note(root, at, true, false, at);
  }

  void use_at(size_t i, const std::string& root) {
    const size_t n = t_.size();
    const std::string next = i + 1 < n ? t_[i + 1].text : "";
    const std::string prev = i > 0 ? t_[i - 1].text : "";
    if (next == "[") {
      const size_t close = closing(i + 1);
      if (prev == "&") return pointer_passed(root, i - 1, i);  // &C[i]: an address
      return element(root, i, close + 1, i);
    }
    if (next == "->") return element(root, i, i + 1, i);
    if (i > 0 && unary_star(i - 1)) {  // *p, *p++ (the ++ moves the pointer)
      size_t k = i + 1;
      while (k < n && (t_[k].text == "++" || t_[k].text == "--")) ++k;
      return element(root, i - 1, k, i);
    }
    if (prev == "(" && i > 1 && unary_star(i - 2)) {  // *(p + k)
      const size_t close = closing(i - 1);
      return element(root, i - 2, close + 1, i);
    }
    if (next == "+=" || next == "-=" || next == "++" || next == "--" || prev == "++" || prev == "--") return;
    pointer_passed(root, i, i);
  }

  // The pointer (or an address into it) spans [b, e): if it is an argument of a call, what the call does.
  void pointer_passed(const std::string& root, size_t b, size_t at) {
    size_t index = 0;
    int depth = 0;
    for (size_t k = b; k-- > 0;) {
      const std::string& x = t_[k].text;
      if (x == ")" || x == "]" || x == "}") ++depth;
      else if (x == "[" || x == "{") {
        if (--depth < 0) return;
      } else if (x == "(") {
        if (--depth >= 0) continue;
        size_t c = k;  // the callee's name before '(' (template arguments skipped)
        if (c > 0 && t_[c - 1].text == ">") {
          int d = 0;
          for (c = c - 1; c > 0; --c) {
            if (t_[c].text == ">") ++d;
            else if (t_[c].text == "<" && --d == 0) break;
          }
        }
        if (c == 0 || t_[c - 1].kind != CodeToken::identifier) {
          if (c > 0 && t_[c - 1].text == ")") {  // (*fp)(p), a call through a pointer, or (float4*)(p + k)
            size_t o = c - 1;
            for (int d = 0; o-- > 0;) {
              if (t_[o + 1].text == ")") ++d;
              else if (t_[o + 1].text == "(" && --d == 0) break;
            }
            if (o + 2 < t_.size() && t_[o + 2].text == "*") return;
            return grouped(root, o + 1, k, at);
          }
          return grouped(root, k, k, at);  // (p + k), ((float4*)p)
        }
        const std::string& callee = t_[c - 1].text;
        if (statement_keyword(callee)) return;
        if (is_cast(callee)) return grouped(root, c - 1, k, at);
        if (callee == "asm" || callee == "__asm__" || callee == "volatile") {
          if (!unseen_.count(root))
            unseen_[root] = "used in inline assembly at line " + std::to_string(line_of(*f_.text, t_[at].begin));
          return;
        }
        return call(root, callee, k, index, at);
      } else if (x == "," && depth == 0) {
        ++index;
      } else if ((x == ";" || x == "=" || is_compound(x)) && depth == 0) {
        return;
      }
    }
  }

  // The pointer inside a parenthesized expression or a cast starting at `first` whose '(' is at
  // `open`: `reinterpret_cast<float4*>(p)[i]` and `*(float4*)(p + k)` access an element; otherwise
  // the whole expression is the pointer, passed on.
  void grouped(const std::string& root, size_t first, size_t open, size_t at) {
    const size_t close = closing(open);
    if (close + 1 < t_.size() && t_[close + 1].text == "[") return element(root, first, close + 1, at);
    if (first > 0 && unary_star(first - 1)) return element(root, first - 1, close + 1, at);
    pointer_passed(root, first, at);
  }

  void call(const std::string& root, const std::string& callee, size_t open, size_t index, size_t at) {
    const KnownCall known = known_call(callee, index);
    if (known.known) {
      if (known.read || known.write) note(root, at, known.read, known.write, at);
      return;
    }
    size_t arity = 1;
    const size_t close = closing(open);
    int depth = 0;
    for (size_t k = open + 1; k < close; ++k) {
      const std::string& x = t_[k].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      else if (x == ")" || x == "]" || x == "}") --depth;
      else if (x == "," && depth == 0) ++arity;
    }
    std::optional<FunctionText> helper;
    if (lookup_ && depth_ < kMaxDepth) helper = lookup_(callee, arity, f_.file);
    if (!helper || index >= helper->params.size()) {
      if (!unseen_.count(root))
        unseen_[root] = "passed to " + callee + "() at line " + std::to_string(line_of(*f_.text, t_[at].begin)) +
                        ", which kernelbot cannot read";
      return;
    }
    // A helper is read once per analysis, however often it is called.
    const auto key = std::make_pair(helper->text, helper->begin);
    auto cached = helpers_->find(key);
    if (cached == helpers_->end()) {
      UseReader inner(*helper, lookup_, depth_ + 1, helpers_);
      inner.read();
      cached = helpers_->emplace(key, HelperUses{inner.events_, inner.unseen_}).first;
    }
    const std::string& param = helper->params[index].name;
    // The helper's accesses, in its order, at the place of the call.
    for (const auto& e : cached->second.events[param]) events_[root].push_back({at, e.read, e.write, e.at});
    if (auto u = cached->second.unseen.find(param); u != cached->second.unseen.end() && !unseen_.count(root))
      unseen_[root] = u->second;
  }

 private:
  const FunctionText& f_;
  const FunctionLookup& lookup_;
  int depth_;
  HelperCache* helpers_;
  std::vector<CodeToken> t_;
  std::map<std::string, std::string> root_;        // a tracked name -> the parameter it points into
  std::map<std::string, std::string> element_of_;  // a reference to one element -> its parameter
  std::set<size_t> bound_;                         // tokens of a reference's binding
  std::map<std::string, std::vector<UseEvent>> events_;
  std::map<std::string, std::string> unseen_;
};

}  // namespace

BufferAccess access_at_offset(const std::string& text, const std::string& file, size_t pos) {
  size_t b = text.rfind('\n', pos);
  b = b == std::string::npos ? 0 : b + 1;
  const size_t e = text.find('\n', pos);
  std::string line = text.substr(b, e == std::string::npos ? std::string::npos : e - b);
  if (auto c = line.find("//"); c != std::string::npos) line.erase(c);
  const auto first = line.find_first_not_of(" \t");
  line = first == std::string::npos ? "" : line.substr(first);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  if (!line.empty() && line.back() == ';') line.pop_back();
  if (line.size() > 90) line = line.substr(0, 87) + "...";
  return {file, line_of(text, pos), line};
}

std::string BufferAccess::where() const { return "line " + std::to_string(line) + " `" + excerpt + "`"; }

std::map<std::string, BufferUses> buffer_uses(const FunctionText& function, const FunctionLookup& lookup) {
  if (!function.text) return {};
  HelperCache helpers;
  return UseReader(function, lookup, 0, &helpers).read();
}

FunctionLookup scanned_function_lookup(const ScanResult& scan,
                                       const std::function<const std::string&(const std::string&)>& text_of) {
  return [&scan, text_of](const std::string& name, size_t arity,
                          const std::string& file) -> std::optional<FunctionText> {
    const std::string wanted = unqualified_name(name);
    // The functions of that name in scan order: through the scanner's index, or (a result put
    // together by hand) every function.
    std::vector<size_t> named;
    if (scan.functions_by_short_name.empty()) {
      for (size_t i = 0; i < scan.functions.size(); ++i)
        if (unqualified_name(scan.functions[i].name) == wanted) named.push_back(i);
    } else {
      for (auto [it, end] = scan.functions_by_short_name.equal_range(wanted); it != end; ++it)
        named.push_back(it->second);
      std::sort(named.begin(), named.end());
    }
    for (const bool same_file : {true, false})
      for (const size_t i : named) {
        if (i >= scan.functions.size()) continue;
        const auto& f = scan.functions[i];
        if ((f.file == file) != same_file || f.params.size() < arity || required_params(f) > arity || f.end <= f.begin)
          continue;
        const std::string& text = text_of(f.file);
        if (f.end > text.size()) continue;
        return FunctionText{&text, f.file, f.begin, f.end, f.params};
      }
    return std::nullopt;
  };
}

void merge_uses(BufferUses& into, const BufferUses& more) {
  const bool had_any = into.read() || into.written();
  if (!had_any) into.read_before_written = more.read_before_written;
  if (!into.first_read) into.first_read = more.first_read;
  if (!into.first_write) into.first_write = more.first_write;
  if (!into.read_and_written) into.read_and_written = more.read_and_written;
  if (!into.unseen) into.unseen = more.unseen;
}

}  // namespace kb::cuda_source
