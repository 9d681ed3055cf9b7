#include "cuda_source/policy/candidate_policy.h"

#include <algorithm>
#include <map>
#include <set>

#include "cuda_source/policy/own_names.h"
#include "cuda_source/policy/refused_names.h"
#include "cuda_source/tokens/preprocessing_tokens.h"

namespace kb::cuda_source {
namespace {

const char* const kUnreadable = "unreadable source";

// The pragmas a kernel uses; any other is refused (`#pragma GCC dependency "file"` reads a file).
bool allowed_pragma(const std::string& first, const std::string& second) {
  static const std::set<std::string> kPragmas = {"once",
                                                 "unroll",
                                                 "nounroll",
                                                 "pack",
                                                 "nv_diag_suppress",
                                                 "nv_diag_default",
                                                 "nv_diag_warning",
                                                 "nv_diag_error",
                                                 "nv_diag_once",
                                                 "diag_suppress",
                                                 "diag_default",
                                                 "diag_warning",
                                                 "diag_error",
                                                 "warning",
                                                 "message",
                                                 "region",
                                                 "endregion",
                                                 "push_macro",
                                                 "pop_macro",
                                                 "nv_exec_check_disable",
                                                 "hd_warning_disable",
                                                 "STDC",
                                                 "omp",
                                                 "ivdep",
                                                 "nv_abi",
                                                 "nv_inline_hint",
                                                 "nv_no_inline_hint"};
  static const std::set<std::string> kGcc = {"diagnostic", "unroll", "ivdep",  "push_options", "pop_options",
                                             "optimize",   "target", "poison", "system_header"};
  if (first == "GCC" || first == "clang") return kGcc.count(second) > 0 || second == "loop";
  return kPragmas.count(first) > 0;
}

bool is_asm(const std::string& name) { return name == "asm" || name == "__asm__" || name == "__asm"; }

// What string contents refuse: paths of the kernel's own process and devices, and sections that
// run code at load time.
std::string refused_string(const std::string& value) {
  for (const char* path : {"/proc", "/dev/", "/sys/"})
    if (value.find(path) != std::string::npos) return path;
  if (value == "/dev") return "/dev";
  for (const char* section : {".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array"})
    if (value.find(section) != std::string::npos) return section;
  return {};
}

class Checker {
 public:
  Checker(const PpTokens& pp, const IncludeScope& includes)
      : t_(pp.tokens), includes_(includes), bindings_(name_bindings(pp.tokens)) {}

  std::vector<PolicyFinding> run() {
    collect_macros();
    for (size_t k = 0; k < t_.size(); ++k) {
      const PpToken& tok = t_[k];
      if (tok.directive_start) {
        directive(k);
        continue;
      }
      if (!tok.in_directive) track_scope(k);
      switch (tok.kind) {
        case PpToken::identifier: identifier(k); break;
        case PpToken::string_literal: k = strings(k); break;
        case PpToken::punct:
          if (tok.text == "##") add("token pasting", "##", tok.line, "a pasted name cannot be checked");
          if (tok.text == "/" && next_is(k, "proc")) add("file access", "/proc", tok.line, "a /proc path");
          break;
        default: break;
      }
    }
    return std::move(found_);
  }

 private:
  void add(const std::string& rule, const std::string& token, int line, const std::string& detail = {}) {
    found_.push_back(PolicyFinding{rule, token, line, detail});
  }
  bool next_is(size_t k, const char* text) const { return k + 1 < t_.size() && t_[k + 1].text == text; }
  bool prev_is(size_t k, const char* text) const { return k > 0 && t_[k - 1].text == text; }
  bool same_directive(size_t k, size_t j) const {
    return j < t_.size() && t_[j].in_directive && !t_[j].directive_start && t_[k].in_directive;
  }

  // Macros whose definitions make a scope device code (`#define DEVICE __device__ __forceinline__`),
  // and function-like macros that paste (their body's names, which an invocation may complete).
  void collect_macros() {
    std::set<std::string> not_device;  // defined otherwise somewhere: which one applies is unknown
    for (size_t k = 0; k + 2 < t_.size(); ++k) {
      if (!t_[k].directive_start || t_[k + 1].text != "define" || t_[k + 2].kind != PpToken::identifier) continue;
      bool device = false, host = false, pastes = false;
      std::vector<std::string> names;
      for (size_t j = k + 3; same_directive(k, j); ++j) {
        device |= t_[j].text == "__device__" || t_[j].text == "__global__";
        host |= t_[j].text == "__host__";
        pastes |= t_[j].text == "##";
        if (t_[j].kind == PpToken::identifier) names.push_back(t_[j].text);
      }
      if (device && !host) device_macros_.insert(t_[k + 2].text);
      else not_device.insert(t_[k + 2].text);
      if (pastes) pasting_macros_[t_[k + 2].text] = names;
    }
    for (const auto& name : not_device) device_macros_.erase(name);
  }

  void directive(size_t k) {
    if (k + 1 >= t_.size() || !same_directive(k, k + 1)) return;
    const PpToken& keyword = t_[k + 1];
    const std::string& kw = keyword.text;
    if (kw == "include" || kw == "include_next" || kw == "import" || kw == "embed") {
      const bool operand = same_directive(k, k + 2) && t_[k + 2].kind == PpToken::header_name;
      const std::string spelled = "#" + kw + (operand ? " " + t_[k + 2].text : "");
      if (kw != "include") {
        add("#include", spelled, keyword.line, "#" + kw + " is not needed by a kernel");
      } else if (!operand) {
        add("#include", spelled, keyword.line, "a computed #include (a macro) cannot be checked");
      } else {
        const std::string& h = t_[k + 2].text;
        const std::string why = include_refusal(h.substr(1, h.size() - 2), h[0] == '<', includes_);
        if (!why.empty()) add("#include", spelled, keyword.line, why);
      }
    } else if (kw == "pragma") {
      pragma(same_directive(k, k + 2) ? t_[k + 2].text : "", same_directive(k, k + 3) ? t_[k + 3].text : "",
             keyword.line);
    }
    // The directive's other tokens (a #define's body, an #if's condition) are read as the
    // caller goes on, as any code is: `#define F fopen` is `fopen`.
  }

  void pragma(const std::string& first, const std::string& second, int line) {
    if (!allowed_pragma(first, second))
      add("#pragma", "#pragma " + first + (first == "GCC" || first == "clang" ? " " + second : ""), line,
          "not a pragma a kernel needs");
  }

  void identifier(size_t k) {
    const PpToken& tok = t_[k];
    const std::string& name = tok.text;
    // A member, or the candidate's own variable, parameter or enumerator in its scope.
    if (bindings_[k] == NameBinding::own) return;
    // The dynamic loader binds a shared library's file-scope variable `getenv` to libc's getenv.
    const bool symbol = bindings_[k] == NameBinding::global_symbol;
    const std::string detail = symbol ? "a variable at file scope, or extern, is linked to the library's function of "
                                        "that name: declare it in a function, a class or a namespace, or static"
                                      : "";
    if (std::string rule = refused_name_rule(name); !rule.empty()) {
      add(rule, name, tok.line, detail);
      return;
    }
    if (std::string rule = refused_call_rule(name); !rule.empty() && (symbol || used_as_function(k))) {
      add(rule, name, tok.line, detail);
      return;
    }
    if (name == "__has_include" || name == "__has_include_next") {
      add("#include", name, tok.line, "probes for files");
    } else if (name == "_Pragma") {
      // _Pragma("unroll"): the string's first words are the pragma.
      if (k + 2 < t_.size() && t_[k + 1].text == "(" && t_[k + 2].kind == PpToken::string_literal) {
        const std::string value = string_literal_value(t_[k + 2].text);
        const PpTokens words = preprocessing_tokens(value);
        pragma(!words.tokens.empty() ? words.tokens[0].text : "", words.tokens.size() > 1 ? words.tokens[1].text : "",
               tok.line);
      } else {
        add("#pragma", "_Pragma", tok.line, "a _Pragma whose operand is not a string cannot be checked");
      }
    } else if (is_asm(name)) {
      if (tok.in_directive)
        add("host inline assembly", name, tok.line, "inline assembly in a macro; write a __device__ function");
      else if (!in_device_code()) add("host inline assembly", name, tok.line, "outside __device__/__global__ code");
    } else if (auto it = pasting_macros_.find(name); it != pasting_macros_.end() && next_is(k, "(")) {
      pasted_names(k, it->second);
    }
  }

  // Called, or its address taken: `read(`, `&read`, `(read)`. A variable of that name passed on
  // (`f(x, write)`) is not: kernels name flags so; nor is a declaration of one's own after a
  // type's name. Qualified by anything but `std::` or `::`, it is someone else's `read`.
  bool used_as_function(size_t k) const {
    // In a macro's body it may become a call wherever the macro is used.
    if (t_[k].in_directive) return true;
    if (k >= 2 && t_[k - 1].text == "::" && t_[k - 2].kind == PpToken::identifier && t_[k - 2].text != "std")
      return false;
    const size_t before = prev_is(k, "::") ? k - 1 : k;  // `&::write` takes the global one's address
    if (prev_is(before, "&") || (prev_is(k, "(") && next_is(k, ")"))) return true;
    if (!next_is(k, "(")) return false;
    // `float read(const float* p)`: a declaration of one's own `read` (after a type's name) is not
    // a call; calling it is.
    static const std::set<std::string> kBeforeAnExpression = {"return",   "else",      "do",       "case",
                                                              "throw",    "co_return", "co_yield", "co_await",
                                                              "sizeof",   "new",       "delete",   "typeid",
                                                              "decltype", "noexcept",  "alignof",  "not",
                                                              "and",      "or"};
    return !(k > 0 && t_[k - 1].kind == PpToken::identifier && !kBeforeAnExpression.count(t_[k - 1].text));
  }

  // An invocation of a pasting macro: every name its arguments and its body could paste into.
  // An invocation inside the arguments of one of the same macro already read adds no piece.
  void pasted_names(size_t k, const std::vector<std::string>& body) {
    size_t& read_until = pasted_until_[t_[k].text];
    if (k < read_until) return;
    std::vector<std::string> pieces = body;
    int depth = 0;
    size_t j = k + 1;
    for (; j < t_.size(); ++j) {
      if (t_[j].text == "(") ++depth;
      else if (t_[j].text == ")" && --depth == 0) break;
      else if (t_[j].kind == PpToken::identifier || t_[j].kind == PpToken::number) pieces.push_back(t_[j].text);
    }
    read_until = j;
    if (const std::string joined = pasted_refused_name(pieces); !joined.empty()) {
      std::string rule = refused_name_rule(joined);
      if (rule.empty()) rule = refused_call_rule(joined);
      add("token pasting", joined, t_[k].line, "pastes into " + rule);
    }
  }

  // Adjacent string literals are one string ("/pr" "oc/self/environ").
  size_t strings(size_t k) {
    std::string value;
    size_t j = k;
    while (j < t_.size() && t_[j].kind == PpToken::string_literal) value += string_literal_value(t_[j++].text);
    if (std::string hit = refused_string(value); !hit.empty())
      add(hit[0] == '.' ? "load-time code" : "file access", "\"" + value.substr(0, 80) + "\"", t_[k].line,
          "names " + hit);
    return j - 1;
  }

  // Scopes: each `{` opens one that is device code when its head (the tokens since the last
  // `;`, `{` or `}`) says __device__ or __global__ without __host__, or its parent is.
  void track_scope(size_t k) {
    const std::string& text = t_[k].text;
    if (text == "{") {
      bool device = !scopes_.empty() && scopes_.back();
      if (head_device_ && !head_host_) device = true;
      scopes_.push_back(device);
      head_device_ = head_host_ = false;
    } else if (text == "}") {
      if (!scopes_.empty()) scopes_.pop_back();
      head_device_ = head_host_ = false;
    } else if (text == ";") {
      head_device_ = head_host_ = false;
    } else if (text == "__device__" || text == "__global__" || device_macros_.count(text)) {
      head_device_ = true;
    } else if (text == "__host__") {
      head_host_ = true;
    }
  }
  bool in_device_code() const { return !scopes_.empty() && scopes_.back(); }

  const std::vector<PpToken>& t_;
  const IncludeScope& includes_;
  const std::vector<NameBinding> bindings_;
  std::vector<PolicyFinding> found_;
  std::set<std::string> device_macros_;
  std::map<std::string, std::vector<std::string>> pasting_macros_;
  std::map<std::string, size_t> pasted_until_;  // by pasting macro: the end of its last invocation read
  std::vector<bool> scopes_;
  bool head_device_ = false, head_host_ = false;
};

}  // namespace

std::string PolicyFinding::describe() const {
  std::string s = "line " + std::to_string(line) + ": `" + token + "` (" + rule + ")";
  if (!detail.empty()) s += ": " + detail;
  return s;
}

std::vector<PolicyFinding> policy_findings(const std::string& text, const IncludeScope& includes) {
  const PpTokens pp = preprocessing_tokens(text);
  std::vector<PolicyFinding> found = Checker(pp, includes).run();
  for (const auto& problem : pp.problems)
    found.push_back(PolicyFinding{kUnreadable, problem.what, problem.line, "not every compiler reads it alike"});
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
  return found;
}

std::vector<PolicyFinding> candidate_policy_violations(const std::string& candidate, const std::string& original,
                                                       const IncludeScope& includes) {
  std::map<std::pair<std::string, std::string>, int> excused;
  for (const auto& f : policy_findings(original, includes)) ++excused[{f.rule, f.token}];
  std::vector<PolicyFinding> out;
  // What cannot be read alike is never excused: the original's harmless "??!" must not let a
  // candidate's `??=include` through.
  for (auto& f : policy_findings(candidate, includes))
    if (f.rule == kUnreadable || --excused[{f.rule, f.token}] < 0) out.push_back(std::move(f));
  return out;
}

std::string policy_refusal_log(const std::vector<PolicyFinding>& violations, size_t limit) {
  if (violations.empty()) return {};
  std::string log = "error: refused by kernelbot's candidate source policy before compiling: " +
                    violations.front().describe() + "\n";
  for (size_t i = 0; i < violations.size() && i < limit; ++i) log += "  " + violations[i].describe() + "\n";
  if (violations.size() > limit) log += "  ... and " + std::to_string(violations.size() - limit) + " more\n";
  log += "A candidate replaces a kernel: device code and the launcher that starts it. It may not access files, the "
         "environment, processes, the network or dynamic libraries, make system calls, use inline assembly outside "
         "__device__/__global__ functions, use __FILE__/__TIME__/__DATE__, paste tokens with ##, or #include anything "
         "but the repository's headers, the CUDA toolkit's and the standard library's. Write it without them.\n";
  return log;
}

}  // namespace kb::cuda_source
