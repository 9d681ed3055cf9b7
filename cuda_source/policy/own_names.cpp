#include "cuda_source/policy/own_names.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

namespace kb::cuda_source {
namespace {

// Words a declarator's name never follows: after them a name is an operand (`return fork;`,
// `sizeof fork`, `__extension__ fork`), a label or a namespace's name.
const std::set<std::string>& not_a_type() {
  static const std::set<std::string> kWords = {"return",        "else",          "do",          "case",
                                               "default",       "throw",         "co_return",   "co_yield",
                                               "co_await",      "sizeof",        "new",         "delete",
                                               "typeid",        "decltype",      "noexcept",    "alignof",
                                               "alignas",       "not",           "and",         "or",
                                               "xor",           "bitand",        "bitor",       "compl",
                                               "not_eq",        "and_eq",        "or_eq",       "xor_eq",
                                               "goto",          "using",         "namespace",   "operator",
                                               "requires",      "static_assert", "if",          "while",
                                               "for",           "switch",        "catch",       "template",
                                               "this",          "nullptr",       "true",        "false",
                                               "asm",           "__asm__",       "__asm",       "__extension__",
                                               "__real__",      "__imag__",      "__alignof__", "__alignof",
                                               "__label__",     "typeof",        "__typeof__",  "__typeof",
                                               "__attribute__", "__attribute",   "__declspec"};
  return kWords;
}

// What a pair of braces or parentheses holds; `statement` is the body of an if, for or while
// without braces, which sees its condition's names up to its end.
enum class ScopeKind {
  file,
  linkage,
  name_space,
  klass,
  scoped_enum,
  plain_enum,
  block,
  statement,
  condition,
  parameters
};

struct NameScope {
  ScopeKind kind = ScopeKind::file;
  bool init = false;            // an initializer's braces: the statement around them goes on after
  bool unnamed = false;         // `namespace {`
  std::set<std::string> names;  // declared here, the candidate's own
  // The statement under way at this level (brace frames): whether it declares, and its head's words.
  bool declaring = false;
  bool is_extern = false, is_static = false, is_friend = false, is_typedef = false;
  bool is_class = false, is_enum = false, is_enum_class = false, is_namespace = false;

  bool parens() const { return kind == ScopeKind::condition || kind == ScopeKind::parameters; }
  void new_statement() {
    declaring = is_extern = is_static = is_friend = is_typedef = false;
    is_class = is_enum = is_enum_class = is_namespace = false;
  }
};

class Binder {
 public:
  explicit Binder(const std::vector<PpToken>& tokens) : t_(tokens), out_(tokens.size(), NameBinding::outside) {}

  std::vector<NameBinding> run() {
    const bool followable = read_directives();
    frames_.push_back(NameScope{});
    for (size_t k = 0; k < t_.size(); ++k) {
      // In a directive, and where the text's scopes may not be the compiler's, only a member is
      // known to be someone else's name.
      if (t_[k].in_directive || !followable) {
        if (t_[k].kind == PpToken::identifier && member(k)) out_[k] = NameBinding::own;
        continue;
      }
      step(k);
    }
    return std::move(out_);
  }

 private:
  bool is(size_t j, const char* text) const { return j < t_.size() && !t_[j].in_directive && t_[j].text == text; }
  bool prev_is(size_t k, const char* text) const { return k > 0 && is(k - 1, text); }
  bool member(size_t k) const {
    const size_t j = prev_is(k, "template") ? k - 1 : k;  // `obj.template fork<T>()`
    return j > 0 && (t_[j - 1].text == "." || t_[j - 1].text == "->");
  }

  // Macros (never a type here: `#define M auto f =` makes `M fork;` a use), the candidate's class
  // and namespace names, and whether braces and parentheses are the compiler's: no #define holds
  // an unbalanced one, and no #if branch leaves them unbalanced.
  bool read_directives() {
    std::pair<int, int> depth{0, 0};
    std::vector<std::pair<int, int>> branches;
    for (size_t k = 0; k < t_.size(); ++k) {
      const PpToken& tok = t_[k];
      if (!tok.directive_start) {
        if (tok.in_directive) continue;
        depth.first += tok.text == "{" ? 1 : tok.text == "}" ? -1 : 0;
        depth.second += tok.text == "(" ? 1 : tok.text == ")" ? -1 : 0;
        read_code(k);
        continue;
      }
      const bool has_keyword = k + 1 < t_.size() && t_[k + 1].in_directive && !t_[k + 1].directive_start;
      const std::string keyword = has_keyword ? t_[k + 1].text : "";
      if (keyword == "define") {
        std::pair<int, int> body{0, 0};
        for (size_t j = k + 2; j < t_.size() && t_[j].in_directive && !t_[j].directive_start; ++j) {
          if (j == k + 2) macros_.insert(t_[j].text);
          body.first += t_[j].text == "{" ? 1 : t_[j].text == "}" ? -1 : 0;
          body.second += t_[j].text == "(" ? 1 : t_[j].text == ")" ? -1 : 0;
        }
        if (body != std::pair<int, int>{0, 0}) return false;
      } else if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
        branches.push_back(depth);
      } else if (keyword == "elif" || keyword == "else" || keyword == "elifdef" || keyword == "elifndef" ||
                 keyword == "endif") {
        if (!branches.empty() && branches.back() != depth) return false;
        if (keyword == "endif" && !branches.empty()) branches.pop_back();
      }
    }
    for (const auto& name : tainted_) namespaces_.erase(name);
    return true;
  }

  // One token of code, read ahead: the class and namespace names that qualify the candidate's own
  // (`Graph::join`, `detail::fork`), but no namespace that a `using namespace` inside it opens to
  // another's names (`namespace n { using namespace std; }` makes `n::getenv` std's).
  void read_code(size_t k) {
    const PpToken& tok = t_[k];
    const bool code_next = k + 1 < t_.size() && !t_[k + 1].in_directive;
    const bool template_parameter = k > 0 && (t_[k - 1].text == "<" || t_[k - 1].text == ",");
    if ((tok.text == "struct" || tok.text == "class" || tok.text == "union") && !template_parameter && code_next &&
        t_[k + 1].kind == PpToken::identifier)
      classes_.insert(t_[k + 1].text);
    static const std::set<std::string> kLikeDeclarators = {"*", "&", "&&", "<", ">", ">>"};
    if (tok.text == "operator" && code_next && kLikeDeclarators.count(t_[k + 1].text))
      operators_like_declarators_ = true;
    if (tok.text == "{") {
      std::string opened = " ";  // not a namespace
      if (prev_is(k, "namespace")) opened.clear();
      else if (k > 1 && t_[k - 1].kind == PpToken::identifier && is(k - 2, "namespace")) opened = t_[k - 1].text;
      if (opened != " " && !opened.empty()) namespaces_.insert(opened);
      open_namespaces_.push_back(opened);
    } else if (tok.text == "}" && !open_namespaces_.empty()) {
      open_namespaces_.pop_back();
    } else if (tok.text == "using" && code_next && t_[k + 1].text == "namespace" && !open_namespaces_.empty() &&
               open_namespaces_.back() != " ") {
      tainted_.insert(open_namespaces_.begin(), open_namespaces_.end());
    }
  }

  void step(size_t k) {
    const PpToken& tok = t_[k];
    // Parameters stay in scope only for the body right after their list (`) const {`, `) -> T {`).
    static const std::set<std::string> kKeepsParameters = {"->", "::", "<", ">", ">>", "*", "&",
                                                           "&&", "[",  "]", "(", ")",  "{"};
    if (!pending_.empty() && tok.kind != PpToken::identifier && !kKeepsParameters.count(tok.text)) pending_.clear();
    if (tok.kind == PpToken::identifier) {
      identifier(k);
      head_word(k);
    } else if (tok.text == "(") {
      const bool condition = prev_is(k, "if") || prev_is(k, "while") || prev_is(k, "for") || prev_is(k, "switch") ||
                             (prev_is(k, "constexpr") && k > 1 && is(k - 2, "if"));
      NameScope f;
      f.kind = condition ? ScopeKind::condition : ScopeKind::parameters;
      frames_.push_back(std::move(f));
    } else if (tok.text == ")") {
      if (frames_.back().parens()) {
        NameScope closed = std::move(frames_.back());
        frames_.pop_back();
        if (closed.kind == ScopeKind::condition && !is(k + 1, "{")) {
          closed.kind = ScopeKind::statement;  // `for (auto e : events) use(e);`
          closed.new_statement();
          frames_.push_back(std::move(closed));
        } else {
          pending_.merge(closed.names);
        }
      }
    } else if (tok.text == "{") {
      open_brace(k);
    } else if (tok.text == "}") {
      pop_statements();
      while (frames_.size() > 1 && frames_.back().parens()) frames_.pop_back();
      if (frames_.size() > 1) {
        NameScope closed = std::move(frames_.back());
        frames_.pop_back();
        // An unnamed namespace's names are its enclosing scope's too (with internal linkage).
        if (closed.kind == ScopeKind::name_space && closed.unnamed) frames_.back().names.merge(closed.names);
        // A braced statement ends a body without braces around it (an `else` after it is not
        // followed: its uses are not the condition's names).
        if (!closed.init) pop_statements();
        if (!closed.init) frames_.back().new_statement();
      }
    } else if (tok.text == ";") {
      if (!frames_.back().parens()) {
        pop_statements();
        frames_.back().new_statement();
      }
    }
  }

  void pop_statements() {
    while (frames_.size() > 1 && frames_.back().kind == ScopeKind::statement) frames_.pop_back();
  }

  void open_brace(size_t k) {
    const NameScope& outer = frames_.back();
    const PpToken* prev = k > 0 ? &t_[k - 1] : nullptr;
    const std::string before = prev ? prev->text : "";
    NameScope f;
    f.kind = ScopeKind::block;
    if (outer.parens()) {
      f.init = before == "(" || before == ",";
    } else if (before == "=" || before == "," || before == "(" || before == "[" || before == "return" ||
               (before == "{" && outer.init)) {
      f.init = true;  // `= {1, 2}`, `f({1, 2})`
    } else if (outer.is_namespace) {
      f.kind = ScopeKind::name_space;
      f.unnamed = before == "namespace";
    } else if (outer.is_extern && prev && prev->kind == PpToken::string_literal) {
      f.kind = ScopeKind::linkage;
    } else if (outer.is_enum) {
      f.kind = outer.is_enum_class ? ScopeKind::scoped_enum : ScopeKind::plain_enum;
    } else if (outer.is_class && before != ")") {
      f.kind = ScopeKind::klass;
    } else if (last_declared_ + 1 == k) {
      f.init = true;  // `cudaEvent_t e{}`
    }
    f.names = std::move(pending_);
    pending_.clear();
    frames_.push_back(std::move(f));
  }

  // The words of a statement's head that decide what its declarations are.
  void head_word(size_t k) {
    NameScope& f = frames_.back();
    if (f.parens()) return;
    const std::string& w = t_[k].text;
    if (w == "extern") f.is_extern = true;
    else if (w == "static") f.is_static = true;
    else if (w == "friend") f.is_friend = true;
    else if (w == "typedef") f.is_typedef = true;
    else if (w == "namespace") f.is_namespace = true;
    else if (w == "enum") f.is_enum = true;
    else if ((w == "class" || w == "struct") && f.is_enum) f.is_enum_class = true;
    else if (w == "struct" || w == "class" || w == "union") f.is_class = true;
  }

  void identifier(size_t k) {
    const std::string& name = t_[k].text;
    if (member(k)) {
      out_[k] = NameBinding::own;
    } else if (prev_is(k, "::")) {
      // `Graph::join`: a member of the candidate's own class; `::fork`, `std::getenv` and other
      // namespaces' names are not known to be its own.
      if (k > 1 && t_[k - 2].kind == PpToken::identifier &&
          (classes_.count(t_[k - 2].text) || namespaces_.count(t_[k - 2].text)))
        out_[k] = NameBinding::own;
    } else if (std::optional<NameBinding> declared = declaration(k)) {
      out_[k] = *declared;
    } else {
      for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
        if (f->names.count(name)) {
          out_[k] = NameBinding::own;
          break;
        }
    }
  }

  // When the name at k is declared there: its binding. Empty when it is not a declarator.
  std::optional<NameBinding> declaration(size_t k) {
    NameScope& f = frames_.back();
    const std::string& name = t_[k].text;
    const std::string next = k + 1 < t_.size() && !t_[k + 1].in_directive ? t_[k + 1].text : "";
    if (f.kind == ScopeKind::scoped_enum || f.kind == ScopeKind::plain_enum) {
      if (!(prev_is(k, "{") || prev_is(k, ",")) || !(next == "," || next == "=" || next == "}")) return std::nullopt;
      f.names.insert(name);  // an enumerator; one of a plain enum is also its enclosing scope's
      if (f.kind == ScopeKind::plain_enum) frames_[frames_.size() - 2].names.insert(name);
      return NameBinding::own;
    }
    if (!after_type(k)) return std::nullopt;
    // A function is declared only in a class (a member); elsewhere it is the library's.
    bool ends = next == ";" || next == "," || next == "=" || next == "[" || next == "{" ||
                (f.kind == ScopeKind::klass && (next == ":" || next == "("));
    if (f.kind == ScopeKind::condition) ends = next == "=" || next == "{" || next == ":";
    if (f.kind == ScopeKind::parameters) ends = next == "," || next == ")" || next == "=" || next == "[";
    // `pid_t fork();` in a function declares the library's (or is a variable's direct
    // initialization, which cannot be told from it): not the candidate's own, whatever is in scope.
    if (!ends) return next == "(" ? std::optional(NameBinding::outside) : std::nullopt;
    last_declared_ = k;
    if (!f.parens()) f.declaring = true;
    const bool type = f.is_typedef || prev_is(k, "struct") || prev_is(k, "class") || prev_is(k, "union");
    if (!type) variables_.insert(name);
    if (f.is_extern || f.is_friend || ((f.kind == ScopeKind::file || f.kind == ScopeKind::linkage) && !f.is_static))
      return NameBinding::global_symbol;
    f.names.insert(name);
    return NameBinding::own;
  }

  // Whether what precedes k ends a type, making k a declarator's name: `cudaEvent_t fork`,
  // `const float* fork`, `std::vector<int>& fork`, or `, fork` in a declaration's list.
  bool after_type(size_t k) const {
    static const std::set<std::string> kDeclarator = {"*", "&", "&&", "const", "volatile", "__restrict__"};
    // With its own `operator*` (or &, &&, <, >), `s * fork` may be an expression: only a plain
    // `Type name` is read as a declaration then.
    const auto declarator = [&](const std::string& text) {
      return kDeclarator.count(text) && !(operators_like_declarators_ && (text == "*" || text[0] == '&'));
    };
    size_t j = k;
    while (j > 0 && !t_[j - 1].in_directive && declarator(t_[j - 1].text)) --j;
    if (j == 0 || t_[j - 1].in_directive) return false;
    const PpToken& p = t_[j - 1];
    if (p.text == ",") return !frames_.back().parens() && frames_.back().declaring;
    if (p.kind == PpToken::identifier)
      // A variable of its own is not a type: `ok && fork` is an operand.
      return !not_a_type().count(p.text) && !macros_.count(p.text) && !variables_.count(p.text);
    if (p.text == ">" || p.text == ">>") return !operators_like_declarators_ && closes_template(j - 1);
    return false;
  }

  // Whether the `>` at j closes a template's arguments (`vector<int>`): an opening `<` after a
  // name, within the statement.
  bool closes_template(size_t j) const {
    int depth = t_[j].text == ">>" ? 2 : 1;
    for (size_t i = j; i > 0 && j - i < 128;) {
      const PpToken& p = t_[--i];
      if (p.in_directive || p.text == ";" || p.text == "{" || p.text == "}") return false;
      if (p.text == ">") ++depth;
      else if (p.text == ">>") depth += 2;
      else if (p.text == "<" && --depth == 0) return i > 0 && t_[i - 1].kind == PpToken::identifier;
    }
    return false;
  }

  const std::vector<PpToken>& t_;
  std::vector<NameBinding> out_;
  std::vector<NameScope> frames_;
  std::set<std::string> pending_;  // the parameters of a list just closed, for the body after it
  std::set<std::string> macros_, classes_, namespaces_, variables_;
  std::vector<std::string> open_namespaces_;  // read ahead: each open brace's namespace, "" unnamed, " " none
  std::set<std::string> tainted_;
  size_t last_declared_ = static_cast<size_t>(-2);
  bool operators_like_declarators_ = false;
};

}  // namespace

std::vector<NameBinding> name_bindings(const std::vector<PpToken>& tokens) { return Binder(tokens).run(); }

}  // namespace kb::cuda_source
