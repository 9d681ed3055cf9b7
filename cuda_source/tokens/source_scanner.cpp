#include "cuda_source/tokens/source_scanner.h"
#include "common/file_io.h"
#include "core/errors.h"
#include "cuda_source/tokens/helper_launches.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>

namespace kb::cuda_source {
namespace {

struct Token {
  enum Kind { ident, number, punct, string_lit } kind;
  std::string text;
  int line;
  size_t offset = 0;  // byte offset of the first character in the file
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits the text into tokens, dropping comments and preprocessor lines (continuations too).
// Macro definitions that contain __global__ or <<< are reported, since their kernels are
// invisible to a scanner that does not expand macros.
std::vector<Token> tokenize(const std::string& s, const std::string& file, std::vector<ScanNote>& notes,
                            std::vector<SourceChunk>* directives = nullptr) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  bool line_start = true;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) {
        notes.push_back({file, line, "unterminated /* comment; the rest of the file was not read"});
        break;
      }
      line += static_cast<int>(std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(end), '\n'));
      i = end + 2;
      continue;
    }
    if (c == '#' && line_start) {
      int start_line = line;
      size_t start = i;
      std::string directive;
      while (i < s.size()) {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
          i += 2;
          ++line;
          directive += ' ';
          continue;
        }
        if (s[i] == '\n') break;
        directive += s[i++];
      }
      if (directives) {
        size_t stop = i;
        if (stop > start && s[stop - 1] == '\r') --stop;
        directives->push_back({SourceChunk::directive, start, stop, start_line});
      }
      if (directive.find("define") != std::string::npos &&
          (directive.find("__global__") != std::string::npos || directive.find("<<<") != std::string::npos))
        notes.push_back({file, start_line,
                         "macro defines a kernel or a launch; not expanded: " +
                             directive.substr(0, std::min<size_t>(directive.size(), 80))});
      continue;
    }
    line_start = false;
    if (c == '"' || c == '\'') {
      // Raw strings are rare in CUDA code; plain and char literals with escapes are handled.
      char quote = c;
      size_t j = i + 1;
      while (j < s.size() && s[j] != quote) {
        if (s[j] == '\\') ++j;
        else if (s[j] == '\n') ++line;
        ++j;
      }
      out.push_back({Token::string_lit, s.substr(i, j + 1 - i), line, i});
      i = j + 1;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      out.push_back({Token::ident, s.substr(i, j - i), line, i});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && (ident_char(s[j]) || s[j] == '.')) ++j;
      out.push_back({Token::number, s.substr(i, j - i), line, i});
      i = j;
      continue;
    }
    for (const char* p : {"<<<", ">>>", "::", "->"}) {
      size_t n = std::char_traits<char>::length(p);
      if (s.compare(i, n, p) == 0) {
        out.push_back({Token::punct, p, line, i});
        i += n;
        goto next;
      }
    }
    out.push_back({Token::punct, std::string(1, c), line, i});
    ++i;
  next:;
  }
  return out;
}

std::string join(const std::vector<Token>& t, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < t.size(); ++i) {
    bool word = t[i].kind == Token::ident || t[i].kind == Token::number;
    bool prev_word = !out.empty() && (ident_char(out.back()));
    if (!out.empty() && (word && prev_word)) out += ' ';
    else if (!out.empty() && word && (out.back() == '*' || out.back() == '&' || out.back() == ',')) out += ' ';
    out += t[i].text;
  }
  return out;
}

// Index of the token closing the bracket opened at `open`, or t.size() if unbalanced.
size_t match(const std::vector<Token>& t, size_t open) {
  const std::string& o = t[open].text;
  std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    else if (t[i].text == c && --depth == 0) return i;
    // A template argument list cannot contain these; stop on them so "a < b;" is not a bracket.
    if (o == "<" && (t[i].text == ";" || t[i].text == "{" || t[i].text == "}")) return t.size();
  }
  return t.size();
}

bool is_keyword_before_paren(const std::string& s) {
  static const char* kw[] = {"if",
                             "for",
                             "while",
                             "switch",
                             "catch",
                             "return",
                             "sizeof",
                             "decltype",
                             "alignof",
                             "static_assert",
                             "__launch_bounds__",
                             "__align__",
                             "noexcept",
                             "alignas",
                             "__attribute__",
                             "__declspec",
                             "throw",
                             "new",
                             "delete"};
  return std::any_of(std::begin(kw), std::end(kw), [&](const char* k) { return s == k; });
}

// In a declaration header [begin, end), finds the function name's token and its parameter
// list's '(' — the first top-level '(' preceded by an identifier that is not a keyword.
bool find_function(const std::vector<Token>& t, size_t begin, size_t end, size_t& name_at, size_t& paren_at) {
  for (size_t i = begin; i < end; ++i) {
    if (t[i].text == "(" && i > begin && t[i - 1].kind == Token::ident && !is_keyword_before_paren(t[i - 1].text)) {
      name_at = i - 1;
      paren_at = i;
      return match(t, i) < end + 1;
    }
    if (t[i].text == "(" || t[i].text == "[") {
      size_t m = match(t, i);
      if (m >= end) return false;
      i = m;
    } else if (t[i].text == "<" && i > begin && t[i - 1].kind == Token::ident) {
      size_t m = match(t, i);
      if (m < end) i = m;
    }
  }
  return false;
}

std::vector<ScannedParam> params_from_tokens(const std::vector<Token>& t, size_t open, size_t close) {
  std::vector<ScannedParam> params;
  size_t start = open + 1;
  int depth = 0;
  for (size_t i = open + 1; i <= close; ++i) {
    const std::string& x = t[i].text;
    if (x == "(" || x == "[" || x == "<" || x == "{") ++depth;
    else if ((x == ")" || x == "]" || x == ">" || x == "}") && i != close) --depth;
    if ((x == "," && depth == 0) || i == close) {
      size_t stop = i;
      // A default argument is kept apart from the type ("cudaStream_t stream = 0").
      for (size_t k = start; k < i; ++k)
        if (t[k].text == "=") {
          stop = k;
          break;
        }
      std::string default_value = stop < i ? join(t, stop + 1, i) : "";
      if (stop > start) {
        ScannedParam p;
        size_t last = stop - 1;
        // Array parameters: "float x[4]" -> name before '['.
        while (last > start && t[last].text == "]") {
          size_t k = last;
          while (k > start && t[k].text != "[") --k;
          last = k - 1;
        }
        bool has_name = t[last].kind == Token::ident && last > start && t[last - 1].text != "::";
        static const char* builtin[] = {"int",      "float",  "double", "char",  "void",     "long",  "short",
                                        "unsigned", "signed", "bool",   "const", "volatile", "size_t"};
        if (has_name &&
            std::any_of(std::begin(builtin), std::end(builtin), [&](const char* b) { return t[last].text == b; }))
          has_name = false;
        p.type = join(t, start, has_name ? last : stop);
        p.name = has_name ? t[last].text : "";
        // A function pointer or reference, "void (*kernel)(const float*, int)": named inside its
        // first parentheses (a launch helper's kernel parameter).
        for (size_t k = start; !has_name && k + 3 < stop; ++k)
          if (t[k].text == "(" && (t[k + 1].text == "*" || t[k + 1].text == "&") && t[k + 2].kind == Token::ident &&
              t[k + 3].text == ")") {
            p.name = t[k + 2].text;
            break;
          }
        p.default_value = default_value;
        p.line = t[has_name ? last : start].line;
        if (!(p.type == "void" && p.name.empty() && params.empty() && i == close)) params.push_back(p);
      }
      start = i + 1;
    }
  }
  return params;
}

// The pieces of [begin, end) between commas outside any (), [], {} or template <...>.
std::vector<std::string> split_top_level(const std::vector<Token>& t, size_t begin, size_t end) {
  std::vector<std::string> parts;
  size_t start = begin;
  for (size_t i = begin; i <= end && i <= t.size(); ++i) {
    if (i == end || i == t.size() || t[i].text == ",") {
      if (i > start) parts.push_back(join(t, start, i));
      start = i + 1;
      if (i >= end || i == t.size()) break;
      continue;
    }
    const std::string& x = t[i].text;
    if (x == "(" || x == "[" || x == "{" || (x == "<" && i > begin && t[i - 1].kind == Token::ident)) {
      size_t m = match(t, i);
      if (m < end) i = m;
    }
  }
  return parts;
}

struct Scope {
  enum Kind { other, ns, cls, function } kind;
  std::string name;
  size_t launcher_index = static_cast<size_t>(-1);  // index into result.launchers, once a launch is seen
  ScannedLauncher pending;                          // the function's header, kept until it launches
  size_t function_index = static_cast<size_t>(-1);  // index into result.functions
  size_t open = 0;                                  // the token of the body's '{'
};

// Words before '(' or inside a kernel argument that are never the kernel or a helper's name.
bool is_cast_or_type_word(const std::string& s) {
  static const char* words[] = {"const",      "void",    "char",        "int",
                                "unsigned",   "float",   "double",      "long",
                                "short",      "bool",    "auto",        "volatile",
                                "nullptr",    "NULL",    "static_cast", "reinterpret_cast",
                                "const_cast", "std",     "size_t",      "decltype",
                                "typename",   "template"};
  return std::any_of(std::begin(words), std::end(words), [&](const char* w) { return s == w; });
}

}  // namespace

std::vector<ScannedParam> split_params(const std::string& text) {
  std::vector<ScanNote> notes;
  auto t = tokenize("(" + text + ")", "", notes);
  if (t.empty()) return {};
  return params_from_tokens(t, 0, t.size() - 1);
}

std::vector<SourceChunk> top_level_chunks(const std::string& text) {
  std::vector<ScanNote> notes;
  std::vector<SourceChunk> directives;
  auto t = tokenize(text, "", notes, &directives);
  std::vector<SourceChunk> chunks;
  size_t start = t.size();  // first token of the open chunk; t.size() when none is open
  size_t first_brace = t.size();
  int depth = 0;
  auto close_chunk = [&](size_t last) {
    chunks.push_back({SourceChunk::declaration, t[start].offset, t[last].offset + t[last].text.size(), t[start].line});
    start = first_brace = t.size();
  };
  // A brace block whose declaration goes on to a ';' (struct X {...};, int a[] = {...};).
  auto ends_with_semicolon = [&]() {
    for (size_t k = start; k < first_brace; ++k) {
      const std::string& x = t[k].text;
      if (x == "=" || x == "struct" || x == "class" || x == "union" || x == "enum" || x == "typedef") return true;
      if (x == "(" || x == "namespace") return false;
    }
    return false;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (start == t.size()) start = i;
    if (x == "{") {
      if (depth++ == 0 && first_brace == t.size()) first_brace = i;
    } else if (x == "}") {
      if (depth > 0 && --depth == 0 && !ends_with_semicolon()) {
        if (i + 1 < t.size() && t[i + 1].text == ";") ++i;
        close_chunk(i);
      }
    } else if (x == ";" && depth == 0) {
      close_chunk(i);
    }
  }
  if (start < t.size()) close_chunk(t.size() - 1);
  // Directives inside a declaration (#pragma unroll in a body) are not top-level pieces.
  for (const auto& d : directives) {
    bool inside = std::any_of(chunks.begin(), chunks.end(), [&](const SourceChunk& c) {
      return c.kind == SourceChunk::declaration && d.begin > c.begin && d.begin < c.end;
    });
    if (!inside) chunks.push_back(d);
  }
  std::sort(chunks.begin(), chunks.end(), [](const SourceChunk& a, const SourceChunk& b) { return a.begin < b.begin; });
  return chunks;
}

std::vector<SourceChunk> directive_chunks(const std::string& text) {
  std::vector<ScanNote> notes;
  std::vector<SourceChunk> directives;
  tokenize(text, "", notes, &directives);
  return directives;
}

namespace {

// One pass over a file's tokens that keeps the scopes (namespaces, classes, function bodies) it is
// in, and records kernels, functions, launch sites and what it could not read.
class SourceScan {
 public:
  SourceScan(const std::string& text, const std::string& file, ScanResult& result)
      : text_(text), file_(file), result_(result), t_(tokenize(text, file, result.skipped)) {}

  void run() {
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& tok = t_[i];
      if (tok.text == ";") {
        // A __global__ declaration without a body.
        header_start_ = i + 1;
      } else if (tok.text == "__global__") {
        read_kernel(i);
      } else if (tok.text == "{") {
        scopes_.push_back(scope_opened_at(i));
        header_start_ = i + 1;
      } else if (tok.text == "}") {
        if (!scopes_.empty()) close_scope();
        header_start_ = i + 1;
      } else if (tok.text == "<<<") {
        i = read_launch(i);
      } else if (tok.kind == Token::ident && is_launch_api(tok.text) && i + 1 < t_.size() && t_[i + 1].text == "(") {
        read_api_launch(i);
      } else if (tok.kind == Token::ident && enclosing_function()) {
        read_call(i);
      }
    }
  }

 private:
  // A function's calls go to its launcher entry too, which was copied at its first launch.
  void close_scope() {
    const Scope& s = scopes_.back();
    if (s.kind == Scope::function && s.function_index < result_.functions.size() &&
        s.launcher_index < result_.launchers.size())
      result_.launchers[s.launcher_index].calls = result_.functions[s.function_index].calls;
    scopes_.pop_back();
  }

  static bool is_launch_api(const std::string& name) {
    return name == "cudaLaunchKernel" || name == "cudaLaunchKernelEx" || name == "cudaLaunchCooperativeKernel" ||
           name == "cuLaunchKernel";
  }

  std::string qualified(const std::string& name) const {
    std::string q;
    for (const auto& s : scopes_)
      if ((s.kind == Scope::ns || s.kind == Scope::cls) && !s.name.empty()) q += s.name + "::";
    return q + name;
  }

  Scope* enclosing_function() {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->kind == Scope::function) return &*it;
    return nullptr;
  }

  // The kernel declared or defined by the `__global__` at token i.
  void read_kernel(size_t i) {
    size_t end = i;
    while (end < t_.size() && t_[end].text != "{" && t_[end].text != ";") ++end;
    size_t name_at = 0, paren_at = 0;
    // A template header before __global__ belongs to this kernel.
    std::string tparams;
    for (size_t k = header_start_; k < i; ++k)
      if (t_[k].text == "template" && k + 1 < i && t_[k + 1].text == "<") {
        size_t m = match(t_, k + 1);
        if (m < i) tparams = join(t_, k + 2, m);
      }
    if (end < t_.size() && find_function(t_, i + 1, end, name_at, paren_at)) {
      size_t close = match(t_, paren_at);
      ScannedKernel k{t_[name_at].text,   file_, t_[name_at].line, params_from_tokens(t_, paren_at, close), tparams,
                      t_[end].text == "{"};
      size_t last = t_[end].text == "{" ? match(t_, end) : end;
      k.begin = t_[std::min(header_start_, i)].offset;
      k.end = last < t_.size() ? t_[last].offset + t_[last].text.size() : text_.size();
      result_.kernels.push_back(k);
    } else {
      result_.skipped.push_back({file_, t_[i].line, "__global__ without a readable function signature"});
    }
  }

  // What the brace at token i opens: a namespace, a class, a function body (recorded as a
  // function) or something else. Braces inside a function body are "something else".
  Scope scope_opened_at(size_t i) {
    Scope s{Scope::other, "", static_cast<size_t>(-1), {}};
    if (enclosing_function() != nullptr || i <= header_start_) return s;
    const std::string& first = t_[header_start_].text;
    size_t name_at = 0, paren_at = 0;
    if (first == "namespace") {
      s.kind = Scope::ns;
      for (size_t k = header_start_ + 1; k < i; ++k)
        if (t_[k].kind == Token::ident) s.name += (s.name.empty() ? "" : "::") + t_[k].text;
    } else if (opens_class(i)) {
      s.kind = Scope::cls;
      s.name = class_name(i);
    } else if (first == "extern" && i == header_start_ + 2 && t_[header_start_ + 1].kind == Token::string_lit) {
      s.kind = Scope::other;  // extern "C" { ... }: transparent
    } else if (!header_has_initializer(i) && find_function(t_, header_start_, i, name_at, paren_at)) {
      s.kind = Scope::function;
      s.pending = function_at(i, name_at, paren_at);
      s.function_index = result_.functions.size();
      s.open = i;
      result_.functions.push_back(s.pending);
    }
    return s;
  }

  // An initializer ("int a[] = {", "auto f = [] {"), but not a default argument or a template's
  // default: '=' inside (...) or template<...> does not count.
  bool header_has_initializer(size_t i) const {
    bool has_eq = false;
    for (size_t k = header_start_; k < i; ++k) {
      if (t_[k].text == "(") k = std::min(match(t_, k), i);
      else if (t_[k].text == "template" && k + 1 < i && t_[k + 1].text == "<") k = std::min(match(t_, k + 1), i);
      else has_eq |= t_[k].text == "=";
    }
    return has_eq;
  }

  // struct/class/union, or a class template (a template header with `struct`/`class` and no '(').
  bool opens_class(size_t i) const {
    const std::string& first = t_[header_start_].text;
    if (first == "struct" || first == "class" || first == "union") return true;
    if (first != "template") return false;
    const auto b = t_.begin() + static_cast<long>(header_start_), e = t_.begin() + static_cast<long>(i);
    return std::any_of(b, e, [](const Token& x) { return x.text == "struct" || x.text == "class"; }) &&
           std::none_of(b, e, [](const Token& x) { return x.text == "("; });
  }

  std::string class_name(size_t i) const {
    for (size_t k = header_start_; k < i; ++k)
      if ((t_[k].text == "struct" || t_[k].text == "class" || t_[k].text == "union") && k + 1 < i &&
          t_[k + 1].kind == Token::ident)
        return t_[k + 1].text;
    return "";
  }

  // The function whose body opens at token i, its name at name_at and its parameters at paren_at.
  ScannedLauncher function_at(size_t i, size_t name_at, size_t paren_at) const {
    size_t close = match(t_, paren_at);
    std::string name = t_[name_at].text;
    // Out-of-class definitions: Foo::bar(...)
    size_t q = name_at;
    while (q >= header_start_ + 2 && t_[q - 1].text == "::" && t_[q - 2].kind == Token::ident) {
      name = t_[q - 2].text + "::" + name;
      q -= 2;
    }
    bool is_kernel = false;
    size_t type_begin = header_start_;
    for (size_t k = header_start_; k < q; ++k) {
      if (t_[k].text == "__global__") is_kernel = true;
      if (t_[k].text == "template" && k + 1 < q && t_[k + 1].text == "<") {
        size_t m = match(t_, k + 1);
        if (m < q) type_begin = m + 1;
      }
    }
    std::vector<Token> type_tokens;
    for (size_t k = type_begin; k < q; ++k) {
      static const char* drop[] = {"static",          "inline", "__host__",  "__device__",  "__global__",
                                   "__forceinline__", "extern", "constexpr", "__noinline__"};
      if (std::none_of(std::begin(drop), std::end(drop), [&](const char* d) { return t_[k].text == d; }) &&
          t_[k].kind != Token::string_lit)
        type_tokens.push_back(t_[k]);
    }
    ScannedLauncher f{qualified(name),
                      file_,
                      t_[name_at].line,
                      join(type_tokens, 0, type_tokens.size()),
                      params_from_tokens(t_, paren_at, close),
                      {},
                      is_kernel};
    size_t body_close = match(t_, i);
    f.begin = t_[header_start_].offset;
    f.end = body_close < t_.size() ? t_[body_close].offset + 1 : text_.size();
    return f;
  }

  // The kernel named before the `<<<` at token i: the identifier (maybe qualified, maybe with
  // <template args>) before it; "" when it cannot be read.
  std::string launched_kernel(size_t i) const {
    size_t k = i;
    if (k > 0 && t_[k - 1].text == ">") {
      int depth = 0;
      size_t j = k - 1;
      for (;; --j) {
        if (t_[j].text == ">") ++depth;
        else if (t_[j].text == "<" && --depth == 0) break;
        if (j == 0) break;
      }
      k = j;
    } else if (k > 0 && t_[k - 1].text == ">>") {
      k = 0;  // tokenized oddly; reported by the caller
    } else if (k > 1 && t_[k - 1].text == "]") {
      // A table of kernels: table[i]<<<...>>>.
      int depth = 0;
      for (size_t j = k - 1; j > 0; --j) {
        if (t_[j].text == "]") ++depth;
        else if (t_[j].text == "[" && --depth == 0) {
          k = j;
          break;
        }
      }
    }
    return k > 0 && t_[k - 1].kind == Token::ident ? t_[k - 1].text : "";
  }

  // The launch site whose `<<<` is token i, added to the launcher it is in. Returns the token to
  // continue after (its `>>>`), or i when it could not be read.
  size_t read_launch(size_t i) {
    const std::string callee = launched_kernel(i);
    size_t close = i + 1;
    int depth = 0;
    while (close < t_.size() && !(t_[close].text == ">>>" && depth == 0)) {
      if (t_[close].text == "(") ++depth;
      else if (t_[close].text == ")") --depth;
      ++close;
    }
    if (callee.empty() || close >= t_.size()) {
      result_.skipped.push_back({file_, t_[i].line, "launch site whose kernel name could not be read"});
      return i;
    }
    ScannedLaunch launch{callee, join(t_, i + 1, close), split_top_level(t_, i + 1, close), {}, file_, t_[i].line};
    if (close + 1 < t_.size() && t_[close + 1].text == "(") {
      size_t args_close = match(t_, close + 1);
      if (args_close < t_.size()) launch.arguments = split_top_level(t_, close + 2, args_close);
    }
    if (!add_launch(std::move(launch), i)) return i;
    return close;
  }

  // Adds a launch read at token i to the function it is in; false (and a note) outside any.
  bool add_launch(ScannedLaunch launch, size_t i) {
    Scope* fn = enclosing_function();
    if (!fn) {
      result_.skipped.push_back({file_, t_[i].line, "launch of " + launch.kernel + " outside any function"});
      return false;
    }
    mark_variable(launch, *fn);
    if (fn->launcher_index == static_cast<size_t>(-1)) {
      fn->launcher_index = result_.launchers.size();
      result_.launchers.push_back(fn->pending);
    }
    result_.launchers[fn->launcher_index].launches.push_back(std::move(launch));
    return true;
  }

  // A launch whose callee is a parameter of the function or a variable it assigns (a function
  // pointer, a table of kernels) is marked with the variable and the names assigned to it; the
  // kernels among them are found when the whole tree is scanned (helper_launches.h).
  void mark_variable(ScannedLaunch& launch, const Scope& fn) {
    const std::string& v = launch.kernel;
    const bool is_param = std::any_of(fn.pending.params.begin(), fn.pending.params.end(),
                                      [&](const ScannedParam& p) { return p.name == v; });
    std::vector<std::string> names;
    const size_t close = std::min(match(t_, fn.open), t_.size());
    const bool assigned = names_assigned(v, fn.open + 1, close, names);
    if (!assigned && !is_param) return;
    // A table or pointer the function reads from file scope (`auto k = kKernels[mode];` with
    // `static void (*const kKernels[])(...) = {a, b};` above): the names assigned to it there.
    for (size_t n = 0, count = names.size(); n < count; ++n) {
      const std::string name = names[n];  // a copy: `names` grows
      names_assigned(name, 0, fn.open, names);
    }
    launch.variable = v;
    launch.assigned = std::move(names);
  }

  // The names assigned to `v` between tokens [from, to) (`v = a;`, `v[] = {a, b}`,
  // `void (*v)(params) = a`, `auto v{a}`), appended to `names`; whether any assignment was seen.
  bool names_assigned(const std::string& v, size_t from, size_t to, std::vector<std::string>& names) const {
    bool assigned = false;
    for (size_t k = std::max<size_t>(from, 1); k < to; ++k) {
      if (t_[k].text != v || t_[k].kind != Token::ident || t_[k - 1].text == "." || t_[k - 1].text == "->" ||
          t_[k - 1].text == "::")
        continue;
      size_t j = k + 1;
      if (j < to && t_[j].text == "[") j = match(t_, j) + 1;  // a table: NAME[] = {...}
      if (j < to && t_[j].text == ")") {                      // void (*NAME)(params) = ...
        ++j;
        if (j < to && t_[j].text == "(") j = match(t_, j) + 1;
      }
      size_t begin = 0, end = 0;
      if (j + 1 < to && t_[j].text == "=" && t_[j + 1].text != "=") {
        begin = j + 1;
        end = begin;
        int depth = 0;
        for (; end < to; ++end) {
          const std::string& x = t_[end].text;
          if (x == "(" || x == "[" || x == "{") ++depth;
          else if (x == ")" || x == "]" || x == "}") --depth;
          else if (x == "<" && t_[end - 1].kind == Token::ident && match(t_, end) < to) end = match(t_, end);
          if (depth < 0 || (depth == 0 && (x == ";" || x == ","))) break;
        }
      } else if (j < to && t_[j].text == "{" && t_[k - 1].kind == Token::ident) {  // auto NAME{k1}
        begin = j + 1;
        end = std::min(match(t_, j), to);
      } else {
        continue;
      }
      assigned = true;
      for (size_t a = begin; a < end; ++a)
        if (t_[a].kind == Token::ident && t_[a].text != v && !is_cast_or_type_word(t_[a].text) &&
            std::find(names.begin(), names.end(), t_[a].text) == names.end())
          names.push_back(t_[a].text);
    }
    return assigned;
  }

  // The name a kernel argument of an API launch gives: `(const void*)k`, `reinterpret_cast<void*>(&ns::k<128>)`.
  std::string kernel_named_in(size_t begin, size_t end) const {
    for (size_t k = begin; k < end; ++k) {
      if (t_[k].kind != Token::ident || is_cast_or_type_word(t_[k].text)) continue;
      while (k + 2 < end && t_[k + 1].text == "::" && t_[k + 2].kind == Token::ident) k += 2;
      return t_[k].text;
    }
    return "";
  }

  // [begin, end) split at its top-level commas, as token ranges.
  std::vector<std::pair<size_t, size_t>> argument_spans(size_t begin, size_t end) const {
    std::vector<std::pair<size_t, size_t>> out;
    size_t start = begin;
    for (size_t k = begin; k < end; ++k) {
      const std::string& x = t_[k].text;
      if (x == "(" || x == "[" || x == "{" || (x == "<" && k > begin && t_[k - 1].kind == Token::ident)) {
        size_t m = match(t_, k);
        if (m < end) k = m;
      } else if (x == ",") {
        out.emplace_back(start, k);
        start = k + 1;
      }
    }
    if (start < end) out.emplace_back(start, end);
    return out;
  }

  // The elements of `void* args[] = {&a, &b}` in the enclosing function, the `&` dropped: the
  // kernel arguments an API launch passes as `args`. Empty when not written so.
  std::vector<std::string> argument_array(const std::string& name) {
    Scope* fn = enclosing_function();
    if (!fn) return {};
    const size_t close = std::min(match(t_, fn->open), t_.size());
    for (size_t k = fn->open + 1; k + 2 < close; ++k) {
      if (t_[k].text != name || t_[k + 1].text != "[") continue;
      size_t j = match(t_, k + 1) + 1;
      if (j < close && t_[j].text == "=") ++j;
      if (j >= close || t_[j].text != "{") continue;
      std::vector<std::string> out;
      for (auto [b, e] : argument_spans(j + 1, std::min(match(t_, j), close))) {
        if (e - b >= 2 && t_[e - 1].kind == Token::ident && t_[e - 2].text == "&") b = e - 1;
        out.push_back(join(t_, b, e));
      }
      return out;
    }
    return {};
  }

  // cudaLaunchKernel(k, grid, block, args, smem, stream), cudaLaunchCooperativeKernel (the same),
  // cudaLaunchKernelEx(&config, k, a, b, c) and cudaLaunchKernelExC(&config, k, args), at token i.
  void read_api_launch(size_t i) {
    const std::string api = t_[i].text;
    const size_t close = match(t_, i + 1);
    const bool ex = api == "cudaLaunchKernelEx" || api == "cudaLaunchKernelExC";
    auto args = close < t_.size() ? argument_spans(i + 2, close) : std::vector<std::pair<size_t, size_t>>{};
    const size_t at = ex ? 1 : 0;
    const std::string kernel = api == "cuLaunchKernel" || args.size() <= at
                                   ? ""
                                   : kernel_named_in(args[at].first, args[at].second);
    if (kernel.empty() || !enclosing_function()) {
      result_.skipped.push_back({file_, t_[i].line, "launch through " + api + "() is not traced to a kernel"});
      return;
    }
    ScannedLaunch launch{kernel, "", {}, {}, file_, t_[i].line};
    launch.api = api;
    auto text = [&](size_t a) { return join(t_, args[a].first, args[a].second); };
    // The kernel arguments as an array of their addresses, when it is a local written out.
    auto array_at = [&](size_t a) {
      return args.size() > a && args[a].second == args[a].first + 1 ? argument_array(text(a))
                                                                    : std::vector<std::string>{};
    };
    if (api == "cudaLaunchKernelEx") {
      for (size_t a = 2; a < args.size(); ++a) launch.arguments.push_back(text(a));
    } else if (api == "cudaLaunchKernelExC") {
      launch.arguments = array_at(2);
    } else {
      for (size_t a : {1, 2, 4, 5})
        if (a < args.size()) launch.config_parts.push_back(text(a));
      launch.arguments = array_at(3);
    }
    add_launch(std::move(launch), i);
  }

  // A call `name(...)`, `ns::name<T, 64>(...)` at token i in a function body, for following
  // launches through helpers. Method calls (`obj.f()`, `p->f()`) are not followed: their class is
  // not known here.
  void read_call(size_t i) {
    if (i > 0 && (t_[i - 1].text == "." || t_[i - 1].text == "->" || t_[i - 1].text == "::")) return;
    size_t last = i;
    std::string name = t_[i].text;
    while (last + 2 < t_.size() && t_[last + 1].text == "::" && t_[last + 2].kind == Token::ident) {
      last += 2;
      name += "::" + t_[last].text;
    }
    size_t open = last + 1;
    if (open < t_.size() && t_[open].text == "<") open = match(t_, open) + 1;
    if (open >= t_.size() || t_[open].text != "(" || is_keyword_before_paren(t_[last].text) ||
        is_cast_or_type_word(t_[last].text) || is_launch_api(t_[last].text))
      return;
    const size_t close = match(t_, open);
    if (close >= t_.size()) return;
    Scope* fn = enclosing_function();
    result_.functions[fn->function_index].calls.push_back({name, split_top_level(t_, open + 1, close), t_[i].line});
  }

  const std::string& text_;
  const std::string& file_;
  ScanResult& result_;
  std::vector<Token> t_;
  std::vector<Scope> scopes_;
  size_t header_start_ = 0;  // first token of the current declaration
};

}  // namespace

void scan_source(const std::string& text, const std::string& file, ScanResult& result) {
  SourceScan(text, file, result).run();
  resolve_launches(result);
}

ScanResult scan_tree(const std::filesystem::path& root, const std::vector<std::string>& exclude) {
  namespace fs = std::filesystem;
  ScanResult result;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto& p = it->path();
    std::string name = p.filename().string();
    if (it->is_directory() &&
        (std::find(exclude.begin(), exclude.end(), name) != exclude.end() || (name.size() > 1 && name[0] == '.'))) {
      it.disable_recursion_pending();
      continue;
    }
    auto ext = p.extension().string();
    // Not only regular files: a FIFO or device named .cu is reported as skipped, not passed over.
    if (!it->is_directory(ec) && (ext == ".cu" || ext == ".cuh")) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::string rel = fs::relative(p, root).string();
    std::optional<std::string> text;
    try {
      text = try_read_text_file(p);
      if (!text) result.skipped.push_back({rel, 0, "cannot read " + rel + ": a symlink that leads nowhere"});
    } catch (const Error& e) {  // a FIFO or device behind a .cu name, no permission, too large
      result.skipped.push_back({rel, 0, e.what()});
    }
    if (!text) continue;
    result.files.push_back(rel);
    SourceScan(*text, rel, result).run();
  }
  resolve_launches(result);  // once, when every helper and kernel of the tree is known
  return result;
}

size_t required_params(const ScannedLauncher& launcher) {
  size_t n = launcher.params.size();
  while (n > 0 && !launcher.params[n - 1].default_value.empty()) --n;
  return n;
}

const ScannedKernel* kernel_definition(const ScanResult& scan, const std::string& name, std::optional<size_t> arity) {
  const auto fits = [&](const ScannedKernel& k) {
    return k.is_definition && k.name == name && (!arity || k.params.size() == *arity);
  };
  if (scan.definitions_by_name.empty()) {  // a result put together by hand, not by the scanner
    for (const auto& k : scan.kernels)
      if (fits(k)) return &k;
    return nullptr;
  }
  size_t first = scan.kernels.size();
  for (auto [it, end] = scan.definitions_by_name.equal_range(name); it != end; ++it)
    if (it->second < scan.kernels.size() && fits(scan.kernels[it->second])) first = std::min(first, it->second);
  return first < scan.kernels.size() ? &scan.kernels[first] : nullptr;
}

std::string unqualified_name(const std::string& name) {
  const size_t pos = name.rfind("::");
  return pos == std::string::npos ? name : name.substr(pos + 2);
}

}  // namespace kb::cuda_source
