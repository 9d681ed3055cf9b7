#include "cuda_source/splicing/declared_entities.h"

#include <optional>
#include <set>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {
namespace {

using TokenList = std::vector<CodeToken>;
constexpr size_t kNone = static_cast<size_t>(-1);

// Words that qualify a declaration or spell a built-in type: never the declared name.
bool is_specifier(const std::string& w) {
  static const std::set<std::string> kWords = {
      "auto",        "bool",         "char",         "class",      "const",           "consteval",  "constexpr",
      "constinit",   "double",       "enum",         "explicit",   "extern",          "float",      "friend",
      "inline",      "int",          "long",         "mutable",    "register",        "short",      "signed",
      "static",      "struct",       "thread_local", "typename",   "union",           "unsigned",   "virtual",
      "void",        "volatile",     "__constant__", "__device__", "__forceinline__", "__global__", "__host__",
      "__managed__", "__noinline__", "__restrict__", "__restrict", "__shared__",      "restrict",   "__inline__"};
  return kWords.count(w) > 0;
}

// Words followed by a parenthesized argument that is no parameter list.
bool takes_parenthesized(const std::string& w) {
  return w == "__launch_bounds__" || w == "__align__" || w == "alignas" || w == "__attribute__" || w == "__declspec" ||
         w == "decltype" || w == "noexcept" || w == "throw" || w == "__cluster_dims__";
}

// The token closing the bracket opened at `open`, or kNone. A '<' is closed by '>' (">>>" is three)
// and cannot contain ';', '{' or '}'.
size_t close_of(const TokenList& t, size_t open) {
  const std::string o = t[open].text;
  if (o == "<") {
    int depth = 0;
    for (size_t i = open; i < t.size(); ++i) {
      const std::string& x = t[i].text;
      if (x == "(" || x == "[") {
        i = close_of(t, i);
        if (i == kNone) return kNone;
      } else if (x == "<") {
        ++depth;
      } else if (x == ">" || x == ">>>") {
        depth -= x == ">" ? 1 : 3;
        if (depth <= 0) return i;
      } else if (x == ";" || x == "{" || x == "}") {
        return kNone;
      }
    }
    return kNone;
  }
  const std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    else if (t[i].text == c && --depth == 0) return i;
  }
  return kNone;
}

std::string spelled(const TokenList& t, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < t.size(); ++i) {
    if (!out.empty() && t[i].kind != CodeToken::punct && t[i - 1].kind != CodeToken::punct) out += ' ';
    out += t[i].text;
  }
  return out;
}

// The parts of [begin, end) between commas outside brackets, as token index ranges.
std::vector<std::pair<size_t, size_t>> top_level_parts(const TokenList& t, size_t begin, size_t end) {
  std::vector<std::pair<size_t, size_t>> parts;
  size_t start = begin;
  for (size_t i = begin; i < end; ++i) {
    const std::string& x = t[i].text;
    if (x == "(" || x == "[" || x == "{" || (x == "<" && i > begin && t[i - 1].kind == CodeToken::identifier)) {
      size_t m = close_of(t, i);
      if (m != kNone && m < end) i = m;
    } else if (x == ",") {
      parts.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (start < end) parts.emplace_back(start, end);
  return parts;
}

// "typename T, int TILE = 64" -> "typename,int": what a template's parameters are, not their names.
std::string template_kinds(const TokenList& t, size_t begin, size_t end) {
  std::string out;
  for (auto [b, e] : top_level_parts(t, begin, end)) {
    for (size_t k = b; k < e; ++k)
      if (t[k].text == "=") e = k;
    if (e > b + 1 && t[e - 1].kind == CodeToken::identifier && !is_specifier(t[e - 1].text)) --e;
    std::string kind = spelled(t, b, e);
    if (kind == "class") kind = "typename";
    out += (out.empty() ? "" : ",") + kind;
  }
  return out;
}

// A parameter's type as it counts in a function's signature: restrict and a top-level const do not.
std::string signature_type(const std::string& type) {
  std::string out;
  size_t pos = 0;
  std::vector<std::string> words;
  while (pos < type.size()) {
    size_t space = type.find(' ', pos);
    if (space == std::string::npos) space = type.size();
    std::string w = type.substr(pos, space - pos);
    if (!w.empty() && w != "__restrict__" && w != "__restrict" && w != "restrict") words.push_back(w);
    pos = space + 1;
  }
  const bool indirect = type.find_first_of("*&") != std::string::npos;
  if (!words.empty() && words.back() == "const" && indirect) words.pop_back();              // float* const
  if (!words.empty() && words.front() == "const" && !indirect) words.erase(words.begin());  // const int
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<DeclaredEntity> read_using(const TokenList& t, size_t i, const std::string& tsig) {
  size_t semi = i;
  while (semi < t.size() && t[semi].text != ";") ++semi;
  if (i + 1 < t.size() && t[i + 1].text == "namespace")
    return {{DeclaredEntity::using_directive, spelled(t, i + 2, semi), "", true}};
  if (i + 2 < t.size() && t[i + 1].kind == CodeToken::identifier && t[i + 2].text == "=")
    return {{DeclaredEntity::type, t[i + 1].text, tsig, true}};
  return {{DeclaredEntity::using_declaration, spelled(t, i + 1, semi), "", true}};
}

std::vector<DeclaredEntity> read_typedef(const TokenList& t, size_t i) {
  std::vector<DeclaredEntity> out;
  size_t semi = i;
  while (semi < t.size() && t[semi].text != ";") {
    if (t[semi].text == "{") semi = close_of(t, semi);
    if (semi == kNone) return {};
    ++semi;
  }
  for (size_t k = i + 1; k + 3 < semi; ++k)  // typedef void (*fn_t)(int);
    if (t[k].text == "(" && (t[k + 1].text == "*" || t[k + 1].text == "&") && t[k + 2].kind == CodeToken::identifier &&
        t[k + 3].text == ")")
      return {{DeclaredEntity::type, t[k + 2].text, "", true}};
  for (auto [b, e] : top_level_parts(t, i + 1, semi)) {
    std::string name;
    for (size_t k = b; k < e; ++k) {
      if (t[k].text == "[" || t[k].text == "(") break;
      if (t[k].text == "{" || t[k].text == "<") {
        size_t m = close_of(t, k);
        if (m == kNone) break;
        k = m;
      } else if (t[k].kind == CodeToken::identifier && !is_specifier(t[k].text)) {
        name = t[k].text;
      }
    }
    if (!name.empty()) out.push_back({DeclaredEntity::type, name, "", true});
  }
  return out;
}

// `struct Name<args> {`, `enum class Name : int {`, `struct Name;`: the type; nothing when the
// declaration only uses an elaborated type (`struct Name* make();`).
std::optional<DeclaredEntity> read_type(const TokenList& t, size_t i) {
  const std::string& head = t[i].text;
  if (head != "struct" && head != "class" && head != "union" && head != "enum") return std::nullopt;
  size_t k = i + 1;
  if (head == "enum" && k < t.size() && (t[k].text == "class" || t[k].text == "struct")) ++k;
  while (k + 1 < t.size() && takes_parenthesized(t[k].text) && t[k + 1].text == "(") {
    size_t m = close_of(t, k + 1);
    if (m == kNone) return std::nullopt;
    k = m + 1;
  }
  if (k >= t.size() || t[k].kind != CodeToken::identifier) return std::nullopt;
  DeclaredEntity type{DeclaredEntity::type, t[k].text, "", false};
  ++k;
  if (k < t.size() && t[k].text == "<") {
    size_t m = close_of(t, k);
    if (m == kNone) return std::nullopt;
    type.signature = spelled(t, k, m + 1);
    k = m + 1;
  }
  if (k >= t.size()) return std::nullopt;
  if (t[k].text == ";") return type;
  if (t[k].text != "{" && t[k].text != ":" && t[k].text != "final") return std::nullopt;
  type.is_definition = true;
  return type;
}

// A function's definition or declaration, or variables: the declarators after the type.
std::vector<DeclaredEntity> read_declarators(const std::string& text, const TokenList& t, size_t i,
                                             const std::string& tsig) {
  std::vector<DeclaredEntity> out;
  bool is_static = false, is_kernel = false, is_extern = false;
  std::string name, spec;
  size_t name_end = kNone;  // one past the name (and its template arguments)
  for (size_t k = i; k < t.size(); ++k) {
    const CodeToken& x = t[k];
    if (x.kind == CodeToken::identifier) {
      is_static |= x.text == "static";
      is_kernel |= x.text == "__global__";
      is_extern |= x.text == "extern";
      if (takes_parenthesized(x.text) && k + 1 < t.size() && t[k + 1].text == "(") {
        size_t m = close_of(t, k + 1);
        if (m == kNone) return {};
        k = m;
        continue;
      }
      if (x.text == "operator") {  // operator+, operator()
        name = "operator";
        size_t s = k + 1;
        if (s + 1 < t.size() && t[s].text == "(" && t[s + 1].text == ")") name += "()", s += 2;
        while (s < t.size() && t[s].text != "(") name += t[s++].text;
        spec.clear();
        name_end = s;
        k = s - 1;
        continue;
      }
      if (is_specifier(x.text)) continue;
      const bool qualified = k >= 1 && t[k - 1].text == "::" && name_end == k && !name.empty();
      name = qualified ? name + "::" + x.text : x.text;
      spec.clear();
      name_end = k + 1;
      if (k + 1 < t.size() && t[k + 1].text == "<") {  // std::array<int, 4>, load_tile<32>
        size_t m = close_of(t, k + 1);
        if (m != kNone) {
          spec = spelled(t, k + 1, m + 1);
          name_end = m + 1;
          k = m;
        }
      }
      continue;
    }
    if (x.text == "::") {
      if (name_end == k) name_end = k + 1;
      continue;
    }
    if (x.text == "(" && (name.empty() || name_end != k)) {  // float (*fp)(int), [[attributes]]
      size_t m = close_of(t, k);
      if (m == kNone) return {};
      k = m;
      continue;
    }
    if (x.text == "[" && name.empty()) {
      size_t m = close_of(t, k);
      if (m == kNone) return {};
      k = m;
      continue;
    }
    if (x.text == "(") {  // the parameter list of the function `name`
      size_t close = close_of(t, k);
      if (close == kNone) return {};
      DeclaredEntity f{DeclaredEntity::function, name, tsig + spec + "(", false, is_static, is_kernel};
      const std::string params = text.substr(t[k].end, t[close].begin - t[k].end);
      bool first = true;
      for (const auto& p : split_params(params)) {
        f.signature += (first ? "" : ",") + signature_type(p.type);
        first = false;
      }
      f.signature += ")";
      for (size_t q = close + 1; q < t.size(); ++q) {
        const std::string& y = t[q].text;
        if (y == "const" || y == "volatile" || y == "&") f.signature += " " + y;
        if (y == "(") q = close_of(t, q) == kNone ? t.size() : close_of(t, q);
        if (y == "{" || y == "=" || y == ":") f.is_definition = true;
        if (y == "{" || y == ";" || y == "=" || y == ":") break;
      }
      return {f};
    }
    if (x.text == "=" || x.text == ";" || x.text == "[" || x.text == "{" || x.text == ",") {
      if (name.empty()) return out;
      DeclaredEntity v{DeclaredEntity::variable, name, tsig.empty() ? "" : tsig + spec, false, is_static, false};
      // The rest of this declarator: array bounds, its initializer.
      size_t q = k;
      bool initialized = false;
      for (; q < t.size() && t[q].text != "," && t[q].text != ";"; ++q) {
        const std::string& y = t[q].text;
        initialized |= y == "=" || y == "{";
        if (y == "(" || y == "[" || y == "{") {
          size_t m = close_of(t, q);
          if (m == kNone) return out;
          q = m;
        }
      }
      v.is_definition = !is_extern || initialized;
      out.push_back(v);
      if (q >= t.size() || t[q].text == ";") return out;
      name.clear();  // `constexpr int a = 1, b = 2;`: the next declarator
      name_end = kNone;
      k = q;
    }
  }
  return out;
}

}  // namespace

std::string DeclaredEntity::key() const {
  static const char* kKind[] = {"f", "v", "t", "t", "u", "d"};  // a namespace alias is a type's name
  return std::string(kKind[kind]) + " " + name + " " + signature;
}

std::vector<DeclaredEntity> declared_entities(const std::string& text, const SourceChunk& chunk) {
  if (chunk.kind == SourceChunk::directive) return {};
  const TokenList t = tokenize_code(text, chunk.begin, chunk.end);
  size_t i = 0;
  std::string tsig;
  while (i < t.size() && t[i].text == "template") {
    if (i + 1 >= t.size() || t[i + 1].text != "<") return {};  // an explicit instantiation
    const size_t m = close_of(t, i + 1);
    if (m == kNone) return {};
    tsig += "template<" + template_kinds(t, i + 2, m) + ">";
    i = m + 1;
  }
  if (i >= t.size()) return {};
  const std::string& first = t[i].text;
  if (first == "using") return read_using(t, i, tsig);
  if (first == "typedef") return read_typedef(t, i);
  if (first == "namespace") {
    if (i + 2 < t.size() && t[i + 2].text == "=") return {{DeclaredEntity::namespace_alias, t[i + 1].text, "", true}};
    return {};
  }
  if (first == "static_assert" || (first == "extern" && i + 1 < t.size() && t[i + 1].text == "{")) return {};
  if (auto type = read_type(t, i)) return {*type};  // a class template is known by its name, as a class is
  return read_declarators(text, t, i, tsig);
}

}  // namespace kb::cuda_source
