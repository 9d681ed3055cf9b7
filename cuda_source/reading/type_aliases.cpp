#include "cuda_source/reading/type_aliases.h"

#include <cctype>
#include <functional>
#include <optional>
#include <regex>

#include "common/file_io.h"
#include "common/text.h"
#include "cuda_source/reading/include_dirs_guess.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::cuda_source {
namespace {

// The text with comments blanked out (newlines kept), so offsets and lines stay those of the file.
std::string without_comments(const std::string& s) {
  std::string out = s;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '"') {  // a string literal may hold "//"
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i)
        if (out[i] == '\\') ++i;
    } else if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    }
  }
  return out;
}

int line_at(const std::string& text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

// Evaluates a #if expression as the preprocessor would, as far as it can: defined(M), integer
// macros, undefined names as 0, ! && || comparisons and parentheses. Nothing when it cannot.
class ConditionEvaluator {
 public:
  ConditionEvaluator(const std::string& text, const std::set<std::string>& defined,
                     const std::map<std::string, std::string>& values)
      : defined_(defined), values_(values) {
    static const std::regex token(R"(\s*(defined|[A-Za-z_]\w*|\d+[uUlL]*|&&|\|\||==|!=|<=|>=|[()!<>]))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), token); it != std::sregex_iterator(); ++it)
      tokens_.push_back((*it)[1]);
    std::string joined;
    for (const auto& t : tokens_) joined += t;
    std::string compact;
    for (char c : text)
      if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
    complete_ = joined == compact;  // a token it does not know (+, ?:, a string) makes it unknown
  }
  std::optional<long> evaluate() {
    if (!complete_ || tokens_.empty()) return std::nullopt;
    auto v = or_expr();
    if (pos_ != tokens_.size()) return std::nullopt;
    return v;
  }

 private:
  using Value = std::optional<long>;
  bool take(const char* t) {
    if (pos_ < tokens_.size() && tokens_[pos_] == t) return ++pos_, true;
    return false;
  }
  Value or_expr() {
    Value v = and_expr();
    while (take("||")) {
      Value r = and_expr();
      v = (v && r) ? Value(*v || *r) : std::nullopt;
    }
    return v;
  }
  Value and_expr() {
    Value v = compare();
    while (take("&&")) {
      Value r = compare();
      v = (v && r) ? Value(*v && *r) : std::nullopt;
    }
    return v;
  }
  Value compare() {
    Value v = unary();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!take(op)) continue;
      Value r = unary();
      if (!v || !r) return std::nullopt;
      std::string o = op;
      return o == "=="   ? *v == *r
             : o == "!=" ? *v != *r
             : o == "<=" ? *v <= *r
             : o == ">=" ? *v >= *r
             : o == "<"  ? *v < *r
                         : *v > *r;
    }
    return v;
  }
  Value unary() {
    if (take("!")) {
      Value v = unary();
      return v ? Value(!*v) : std::nullopt;
    }
    if (take("(")) {
      Value v = or_expr();
      return take(")") ? v : std::nullopt;
    }
    if (pos_ >= tokens_.size()) return std::nullopt;
    std::string t = tokens_[pos_++];
    if (t == "defined") {
      bool paren = take("(");
      if (pos_ >= tokens_.size()) return std::nullopt;
      std::string name = tokens_[pos_++];
      if (paren && !take(")")) return std::nullopt;
      return defined_.count(name) ? 1 : 0;
    }
    if (std::isdigit(static_cast<unsigned char>(t[0]))) return std::stol(t);
    if (!defined_.count(t)) return 0;  // an undefined name is 0 in #if
    auto it = values_.find(t);
    if (it == values_.end()) return std::nullopt;
    auto v = integer_value(it->second);
    return v ? Value(*v) : std::nullopt;
  }

  const std::set<std::string>& defined_;
  const std::map<std::string, std::string>& values_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
  bool complete_ = true;
};

// One open #if block: whether the branch being read is taken, whether one was taken already.
struct Frame {
  bool active = true;
  bool any_taken = false;
  bool known = true;
  std::string condition;  // "#if defined(ENABLE_BF16)" as written, for notes
  std::string branch;     // "#if defined(ENABLE_BF16)" or "#else of #if ..."
};

bool looks_like_type(const std::string& value) {
  static const std::regex type(R"(^(const\s+|unsigned\s+|signed\s+|struct\s+)*[A-Za-z_][\w:]*(\s+[A-Za-z_]\w*)*$)");
  return std::regex_match(value, type);
}

}  // namespace

void AliasReader::read_file(const std::filesystem::path& file) {
  auto path = file.is_absolute() ? file : root / file;
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec);
  std::string key = (ec ? path : canonical).string();
  if (!visited.insert(key).second) return;
  if (auto text = read_text_file_if_readable(path)) read_text(*text, path);
}

void AliasReader::read_text(const std::string& original, const std::filesystem::path& file) {
  const std::string text = without_comments(original);
  std::string shown = file.lexically_relative(root).string();
  if (shown.empty() || shown.starts_with("..")) shown = file.string();
  std::map<std::string, std::string> values;  // object-like macros of this reading, for #if

  // Directives and declarations in file order.
  struct Event {
    size_t offset;
    const Directive* directive;
    std::string alias, target;
  };
  std::vector<Directive> directives = read_directives(original);
  std::vector<Event> events;
  for (const auto& d : directives) events.push_back({d.begin, &d, "", ""});
  static const std::regex typedef_re(R"(\btypedef\s+([^;{}()#]+?)\s+([A-Za-z_]\w*)\s*;)");
  static const std::regex using_re(R"(\busing\s+([A-Za-z_]\w*)\s*=\s*([^;{}()#]+?)\s*;)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), typedef_re); it != std::sregex_iterator(); ++it)
    events.push_back({static_cast<size_t>(it->position(0)), nullptr, (*it)[2], trim((*it)[1].str())});
  for (auto it = std::sregex_iterator(text.begin(), text.end(), using_re); it != std::sregex_iterator(); ++it)
    events.push_back({static_cast<size_t>(it->position(0)), nullptr, (*it)[1], trim((*it)[2].str())});
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.offset < b.offset; });

  std::vector<Frame> frames;
  auto all_active = [&] { return std::all_of(frames.begin(), frames.end(), [](const Frame& f) { return f.active; }); };
  auto record = [&](const std::string& name, const std::string& target, size_t offset) {
    if (name == target || target.empty()) return;
    TypeAlias& a = aliases[name];
    a.name = name;
    if (std::find(a.alternatives.begin(), a.alternatives.end(), target) == a.alternatives.end())
      a.alternatives.push_back(target);
    bool active = all_active();
    // The first definition a default build takes wins; until one is seen, the first of any.
    bool take = a.chosen.empty() || (active && !a.in_default_build);
    if (!take) return;
    a.chosen = target;
    a.in_default_build = active;
    a.branch_known = std::all_of(frames.begin(), frames.end(), [](const Frame& f) { return f.known; });
    a.condition = frames.empty() ? "" : frames.back().branch;
    a.file = shown;
    a.line = line_at(text, offset);
  };

  for (const auto& e : events) {
    if (!e.directive) {
      record(e.alias, e.target, e.offset);
      continue;
    }
    const Directive& d = *e.directive;
    std::string whole = trim(original.substr(d.begin, d.end - d.begin));
    std::string rest = whole;
    if (auto k = rest.find(d.keyword); !d.keyword.empty() && k != std::string::npos)
      rest = trim(rest.substr(k + d.keyword.size()));
    auto evaluate = [&](const std::string& kw, const std::string& expr) -> std::optional<long> {
      if (kw == "ifdef") return defined.count(d.name) ? 1 : 0;
      if (kw == "ifndef") return defined.count(d.name) ? 0 : 1;
      return ConditionEvaluator(expr, defined, values).evaluate();
    };
    if (d.keyword == "if" || d.keyword == "ifdef" || d.keyword == "ifndef") {
      auto v = evaluate(d.keyword, rest);
      Frame f;
      f.known = v.has_value();
      f.active = v ? *v != 0 : true;  // unknown: take the first branch, and say so
      f.any_taken = f.active;
      f.condition = whole;
      f.branch = whole;
      frames.push_back(f);
    } else if ((d.keyword == "elif" || d.keyword == "else") && !frames.empty()) {
      Frame& f = frames.back();
      std::optional<long> v = d.keyword == "else" ? std::optional<long>(1) : evaluate("if", rest);
      f.known = f.known && v.has_value();
      f.active = !f.any_taken && v && *v != 0;
      f.any_taken = f.any_taken || f.active;
      f.branch = "#" + d.keyword + (d.keyword == "elif" ? " " + rest : "") + " of " + f.condition;
    } else if (d.keyword == "endif" && !frames.empty()) {
      frames.pop_back();
    } else if (d.keyword == "define" && !d.name.empty() && all_active()) {
      defined.insert(d.name);
      if (!d.function_like) {
        std::string value = trim(d.value(original));
        values[d.name] = value;
        if (looks_like_type(value) && !integer_value(value)) record(d.name, value, d.begin);
      }
    } else if (d.keyword == "define" && !d.name.empty() && !d.function_like) {
      std::string value = trim(d.value(original));
      if (looks_like_type(value) && !integer_value(value)) record(d.name, value, d.begin);
    } else if (d.keyword == "undef" && all_active()) {
      defined.erase(d.name);
    } else if (const std::string included = quoted_include(original, d); !included.empty()) {
      if (auto found = resolve_quoted_include(root, file, included, include_dirs)) read_file(*found);
    }
  }
}

TypeAliases collect_type_aliases(const std::filesystem::path& root, const std::string& file,
                                 const std::vector<std::string>& include_dirs) {
  AliasReader reader;
  reader.root = root;
  reader.include_dirs = include_dirs;
  reader.read_file(file);
  return reader.aliases;
}

std::string resolve_type(const std::string& type, const TypeAliases& aliases, std::vector<const TypeAlias*>* used) {
  static const std::regex word(R"([A-Za-z_]\w*)");
  std::string current = type;
  for (int depth = 0; depth < 8; ++depth) {  // chains: typedef floatX real; typedef real_t floatX;
    std::string next;
    bool changed = false;
    size_t last = 0;
    for (auto it = std::sregex_iterator(current.begin(), current.end(), word); it != std::sregex_iterator(); ++it) {
      next += current.substr(last, static_cast<size_t>(it->position(0)) - last);
      auto a = aliases.find(it->str());
      if (a != aliases.end() && !a->second.chosen.empty()) {
        next += a->second.chosen;
        changed = true;
        if (used && std::find(used->begin(), used->end(), &a->second) == used->end()) used->push_back(&a->second);
      } else {
        next += it->str();
      }
      last = static_cast<size_t>(it->position(0) + it->length());
    }
    next += current.substr(last);
    current = next;
    if (!changed) break;
  }
  return current;
}

}  // namespace kb::cuda_source
