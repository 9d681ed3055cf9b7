#include "cuda_source/knobs/literal_knobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "common/text.h"
#include "core/errors.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::cuda_source {
namespace {

using Tokens = std::vector<CodeToken>;

// A run of tokens [begin, end) of one token vector.
struct Span {
  size_t begin = 0, end = 0;
  bool empty() const { return begin >= end; }
  size_t size() const { return end - begin; }
};

bool is(const Tokens& t, size_t i, const char* text) { return i < t.size() && t[i].text == text; }

bool opens(const std::string& s) { return s == "(" || s == "[" || s == "{"; }
bool closes(const std::string& s) { return s == ")" || s == "]" || s == "}"; }

// The index of the bracket that closes the one at `open`, or t.size().
size_t matching(const Tokens& t, size_t open, size_t limit) {
  int depth = 0;
  for (size_t i = open; i < limit; ++i) {
    if (opens(t[i].text)) ++depth;
    if (closes(t[i].text) && --depth == 0) return i;
  }
  return t.size();
}

// `span` split at its commas outside brackets.
std::vector<Span> split_commas(const Tokens& t, Span span) {
  std::vector<Span> parts;
  int depth = 0;
  size_t start = span.begin;
  for (size_t i = span.begin; i < span.end; ++i) {
    if (opens(t[i].text)) ++depth;
    if (closes(t[i].text)) --depth;
    if (t[i].text == "," && depth == 0) {
      parts.push_back({start, i});
      start = i + 1;
    }
  }
  if (start < span.end) parts.push_back({start, span.end});
  return parts;
}

std::string text_of(const std::string& text, const Tokens& t, Span s) {
  return s.empty() ? "" : text.substr(t[s.begin].begin, t[s.end - 1].end - t[s.begin].begin);
}

bool contains_ci(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

// One <<<...>>> site of the launcher's body.
struct LaunchSite {
  std::string kernel;
  Span template_args;        // inside kernel<...>, empty when none
  std::vector<Span> config;  // grid, block, smem, stream
  int line = 0;
};

// A declaration of the body that the grid or block may name: `dim3 grid(a, b)`, `int blocks = e;`.
struct LocalInit {
  bool dim3 = false;
  std::vector<Span> parts;  // the dim3's components, or the one initializer
};

// A `const`/`constexpr` integer local with a literal value.
struct ConstantLocal {
  std::string name;
  size_t literal = 0;  // token index of the value
  int64_t value = 0;
  std::string declaration;  // "constexpr int threads = 32"
};

// A file-scope `#define NAME <integer>` with no #ifndef guard (a guarded one is a tunable macro,
// set with -D): -D cannot change it, so a new value is an edit of the line.
struct FileDefine {
  std::string name;
  int64_t value = 0;
  size_t value_begin = 0, value_end = 0;
  int line = 0;
  std::string text;  // "#define SAXPY_BLOCK 128"
};

const std::set<std::string> kIntegerTypeWords = {"int",     "unsigned", "signed",  "long",    "short",
                                                 "size_t",  "std",      "auto",    "int32_t", "uint32_t",
                                                 "int64_t", "uint64_t", "int16_t", "uint16_t"};

class KnobFinder {
 public:
  KnobFinder(const std::string& text, const ScanResult& scan, std::string file)
      : text_(text), scan_(scan), file_(std::move(file)) {}

  LauncherKnobs find(const std::string& launcher_name, const OverloadScore& score) {
    const ScannedLauncher* launcher = nullptr;
    int best = 0;
    for (const auto& l : scan_.launchers) {
      if (l.name != launcher_name && unqualified_name(l.name) != unqualified_name(launcher_name)) continue;
      const int s = score ? score(l) : 0;
      if (!launcher || s > best) launcher = &l, best = s;
    }
    if (!launcher || launcher->end <= launcher->begin) return std::move(out_);
    launcher_ = launcher;
    name_ = unqualified_name(launcher->name);
    if (!read_body()) return std::move(out_);
    read_locals();
    read_file_defines();
    read_launches();
    for (const auto& site : sites_) knobs_of_launch(site);
    knobs_of_constants();
    knobs_of_defines();
    for (const auto& k : launched_kernels()) knobs_of_kernel(*k);
    drop_overlapping();
    return std::move(out_);
  }

 private:
  std::string at(size_t offset) const { return fmt::format("{}:{}", file_, line_of(text_, offset)); }

  bool read_body() {
    Tokens head = tokenize_code(text_, launcher_->begin, launcher_->end);
    int depth = 0;
    for (const auto& tok : head) {
      if (tok.text == "(") ++depth;
      if (tok.text == ")") --depth;
      if (tok.text == "{" && depth == 0) {
        body_begin_ = tok.end;
        break;
      }
    }
    if (body_begin_ == 0 || launcher_->end == 0 || text_[launcher_->end - 1] != '}') return false;
    t_ = tokenize_code(text_, body_begin_, launcher_->end - 1);
    return true;
  }

  // Statement starts: the body's first token and every token after `;`, `{` or `}`.
  bool statement_start(size_t i) const {
    return i == 0 || is(t_, i - 1, ";") || is(t_, i - 1, "{") || is(t_, i - 1, "}");
  }

  void read_locals() {
    for (size_t i = 0; i < t_.size(); ++i) {
      // dim3 NAME(a, b) / dim3 NAME{a, b} / dim3 NAME = dim3(a, b) / dim3 NAME = {a, b}
      if (t_[i].text == "dim3" && i + 2 < t_.size() && t_[i + 1].kind == CodeToken::identifier &&
          (i == 0 || !is(t_, i - 1, "("))) {
        size_t open = i + 2;
        if (is(t_, open, "=")) open += is(t_, open + 1, "dim3") ? 2 : 1;
        if (is(t_, open, "(") || is(t_, open, "{")) {
          size_t close = matching(t_, open, t_.size());
          if (close < t_.size() && !inits_.count(t_[i + 1].text))
            inits_[t_[i + 1].text] = LocalInit{true, split_commas(t_, {open + 1, close})};
        }
        continue;
      }
      // TYPE NAME = expr;  (the first initialization of a name is the one read)
      if (t_[i].kind == CodeToken::identifier && i > 0 && t_[i - 1].kind == CodeToken::identifier &&
          is(t_, i + 1, "=") && !inits_.count(t_[i].text)) {
        size_t end = i + 2;
        int depth = 0;
        for (; end < t_.size(); ++end) {
          if (opens(t_[end].text)) ++depth;
          if (closes(t_[end].text)) --depth;
          if (depth < 0 || (depth == 0 && (t_[end].text == ";" || t_[end].text == ","))) break;
        }
        inits_[t_[i].text] = LocalInit{false, {{i + 2, end}}};
      }
      if (statement_start(i)) read_constant(i);
    }
  }

  // [static] const|constexpr <integer type> NAME (= N | = {N} | {N} | (N)) ;
  void read_constant(size_t i) {
    size_t k = i;
    bool is_const = false;
    while (k < t_.size() && (t_[k].text == "static" || t_[k].text == "const" || t_[k].text == "constexpr")) {
      is_const |= t_[k].text != "static";
      ++k;
    }
    size_t type_begin = k;
    while (k < t_.size() && (kIntegerTypeWords.count(t_[k].text) || t_[k].text == "::" || t_[k].text == "const")) {
      is_const |= t_[k].text == "const";
      ++k;
    }
    if (!is_const || k == type_begin || k + 2 >= t_.size() || t_[k].kind != CodeToken::identifier) return;
    if (kIntegerTypeWords.count(t_[k].text)) return;
    size_t name = k++;
    if (is(t_, k, "=")) ++k;
    bool braced = is(t_, k, "{") || is(t_, k, "(");
    if (braced) ++k;
    if (k >= t_.size()) return;
    auto value = integer_literal(t_[k]);
    if (!value) return;
    size_t after = k + 1 + (braced ? 1 : 0);
    if (braced && !(is(t_, k + 1, "}") || is(t_, k + 1, ")"))) return;
    if (!is(t_, after, ";")) return;
    constants_.push_back(ConstantLocal{t_[name].text, k, *value, text_.substr(t_[i].begin, t_[k].end - t_[i].begin)});
  }

  void read_launches() {
    for (size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].text != "<<<") continue;
      size_t close = i + 1;
      while (close < t_.size() && t_[close].text != ">>>") ++close;
      if (close >= t_.size()) return;
      LaunchSite site;
      site.line = line_of(text_, t_[i].begin);
      site.config = split_commas(t_, {i + 1, close});
      size_t k = i;  // walk back over kernel<...> to the kernel's name
      if (k > 0 && is(t_, k - 1, ">")) {
        int depth = 0;
        size_t j = k - 1;
        for (;; --j) {
          if (t_[j].text == ">") ++depth;
          if (t_[j].text == "<" && --depth == 0) break;
          if (j == 0) break;
        }
        site.template_args = {j + 1, k - 1};
        k = j;
      }
      if (k > 0 && t_[k - 1].kind == CodeToken::identifier) site.kernel = t_[k - 1].text;
      if (const ScannedLaunch* pointer = pointer_launch_at(site.line)) {
        refuse(at(t_[i].begin), fmt::format("the launch names the function pointer `{}`, which may hold {}: a new "
                                            "block there would be every such kernel's, not one knob",
                                            pointer->variable, kernels_held(*pointer)));
        i = close;
        continue;
      }
      if (!site.kernel.empty() && site.config.size() >= 2) {
        sites_.push_back(site);
        if (++launches_of_[site.kernel] == 1 && site.template_args.size())
          out_.template_args[site.kernel] = text_of(text_, t_, site.template_args);
      }
      i = close;
    }
    for (const auto& [kernel, launches] : launches_of_)
      if (launches > 1) out_.template_args.erase(kernel);  // no one launch's arguments
    // Launches whose block is not written in this body: no knob of this launcher.
    for (const auto& launch : launcher_->launches) {
      if (!launch.via.empty())
        refuse(fmt::format("{}:{}", launch.file, launch.line),
               fmt::format("{} launches {} through {}, where the launch is written: not a knob of {}", name_,
                           launch.kernel, launch.via, name_));
      else if (!launch.api.empty())
        refuse(fmt::format("{}:{}", launch.file, launch.line),
               fmt::format("{} launches {} through {}(): its block is not read", name_, launch.kernel, launch.api));
    }
  }

  // The scanner's launch of a function pointer (or table) at `line` of the launcher's own body.
  const ScannedLaunch* pointer_launch_at(int line) const {
    for (const auto& launch : launcher_->launches)
      if (launch.via.empty() && launch.api.empty() && !launch.variable.empty() && launch.line == line) return &launch;
    return nullptr;
  }

  std::string kernels_held(const ScannedLaunch& pointer) const {
    std::string out;
    for (const auto& launch : launcher_->launches)
      if (launch.via.empty() && launch.line == pointer.line && launch.variable == pointer.variable)
        out += (out.empty() ? "" : ", ") + launch.kernel;
    return out;
  }

  std::vector<const ScannedKernel*> launched_kernels() const {
    std::vector<const ScannedKernel*> out;
    for (const auto& site : sites_)
      for (const auto& k : scan_.kernels)
        if (k.is_definition && unqualified_name(k.name) == site.kernel &&
            std::find(out.begin(), out.end(), &k) == out.end())
          out.push_back(&k);
    return out;
  }

  const ScannedKernel* kernel_named(const std::string& name) const {
    for (const auto& k : scan_.kernels)
      if (k.is_definition && unqualified_name(k.name) == name) return &k;
    return nullptr;
  }

  // The grid's extents: a dim3's components (named or written inline) or the one expression.
  // A local named by an extent is read through its initializer (`int blocks = (n + 31) / 32;`).
  std::vector<Span> grid_extents(Span grid) const {
    std::vector<Span> extents{grid};
    if (grid.size() == 1 && t_[grid.begin].kind == CodeToken::identifier) {
      auto it = inits_.find(t_[grid.begin].text);
      if (it != inits_.end()) extents = it->second.parts;
    } else if (grid.size() >= 3 && t_[grid.begin].text == "dim3" &&
               (is(t_, grid.begin + 1, "(") || is(t_, grid.begin + 1, "{"))) {
      extents = split_commas(t_, {grid.begin + 2, grid.end - 1});
    }
    for (auto& e : extents)
      if (e.size() == 1 && t_[e.begin].kind == CodeToken::identifier)
        if (auto it = inits_.find(t_[e.begin].text); it != inits_.end() && !it->second.dim3) e = it->second.parts[0];
    return extents;
  }

  // The places in `span` that carry block extent `v`: `/ v`, `+ v - 1`, `+ (v-1))`, `div(n, v)`.
  // False when `v` appears there in any other way: the grid cannot then follow a new value.
  bool grid_occurrences(Span span, int64_t v, std::vector<KnobOccurrence>& out) const {
    for (size_t i = span.begin; i < span.end; ++i) {
      auto value = integer_literal(t_[i]);
      if (!value) continue;
      const std::string prev = i > span.begin ? t_[i - 1].text : "";
      const std::string next = i + 1 < span.end ? t_[i + 1].text : "";
      if (*value == 1 && prev == "-") continue;  // the `- 1` of a rounded-up division, whatever v is
      if (*value == v) {
        bool divisor = prev == "/";
        bool rounded_up = (prev == "+" || prev == "(") && next == "-" && i + 2 < span.end && t_[i + 2].text == "1";
        bool div_call = false;
        if (prev == "," && next == ")") {
          int depth = 0;
          for (size_t j = i; j > span.begin; --j) {
            if (closes(t_[j - 1].text)) ++depth;
            if (opens(t_[j - 1].text) && depth-- == 0) {
              div_call = j >= 2 && t_[j - 2].kind == CodeToken::identifier && contains_ci(t_[j - 2].text, "div");
              break;
            }
          }
        }
        if (!divisor && !rounded_up && !div_call) return false;
        out.push_back({t_[i].begin, t_[i].end, 0, ""});
      } else if (v > 1 && *value == v - 1 && prev == "+" && next == ")") {
        out.push_back({t_[i].begin, t_[i].end, -1, ""});
      }
    }
    return true;
  }

  // A literal __launch_bounds__ maximum of `kernel` equal to `v`: it must follow the block.
  std::optional<KnobOccurrence> launch_bounds_of(const std::string& kernel, int64_t v) const {
    const ScannedKernel* k = kernel_named(kernel);
    if (!k) return std::nullopt;
    Tokens kt = tokenize_code(text_, k->begin, k->end);
    for (size_t i = 0; i + 2 < kt.size() && kt[i].text != "{"; ++i)
      if (kt[i].text == "__launch_bounds__" && kt[i + 1].text == "(")
        if (auto value = integer_literal(kt[i + 2]); value && *value == v)
          return KnobOccurrence{kt[i + 2].begin, kt[i + 2].end, 0, ""};
    return std::nullopt;
  }

  // Literals equal to the block size among the launched kernel's template arguments move with it
  // (`kernel<256><<<grid, 256>>>`).
  void template_occurrences(const LaunchSite& site, int64_t v, std::vector<KnobOccurrence>& out) const {
    for (size_t i = site.template_args.begin; i < site.template_args.end; ++i)
      if (auto value = integer_literal(t_[i]); value && *value == v) out.push_back({t_[i].begin, t_[i].end, 0, ""});
  }

  bool other_args_mention(const LaunchSite& site, int64_t v) const {
    for (size_t a = 2; a < site.config.size(); ++a)
      for (size_t i = site.config[a].begin; i < site.config[a].end; ++i)
        if (auto value = integer_literal(t_[i]); value && *value == v) return true;
    return false;
  }

  std::string launch_subject(const LaunchSite& site) const {
    return sites_.size() > 1 ? fmt::format("{}'s launch of {}", name_, site.kernel) : fmt::format("{}'s launch", name_);
  }

  // The block's components as written: a dim3's (inline or a named local) or the one expression.
  std::vector<Span> block_components(Span block) const {
    if (block.size() == 1 && t_[block.begin].kind == CodeToken::identifier) {
      auto it = inits_.find(t_[block.begin].text);
      if (it != inits_.end() && it->second.dim3) return it->second.parts;
    } else if (block.size() >= 3 && t_[block.begin].text == "dim3" &&
               (is(t_, block.begin + 1, "(") || is(t_, block.begin + 1, "{"))) {
      return split_commas(t_, {block.begin + 2, block.end - 1});
    }
    return {block};
  }

  // Each component as a power of one value: `T` 1, `T * T` 2, a literal 1 0; nothing when a
  // component is written any other way, or none reads the value.
  std::optional<std::vector<int>> block_powers(const std::vector<Span>& components,
                                               const std::function<bool(const CodeToken&)>& is_value) const {
    std::vector<int> out;
    int total = 0;
    for (Span c : components) {
      if (c.size() == 1 && !is_value(t_[c.begin])) {
        auto one = integer_literal(t_[c.begin]);
        if (!one || *one != 1) return std::nullopt;
        out.push_back(0);
        continue;
      }
      if (c.size() % 2 == 0) return std::nullopt;
      int power = 0;
      for (size_t i = c.begin; i < c.end; ++i) {
        const bool factor = (i - c.begin) % 2 == 0;
        if (factor && !is_value(t_[i])) return std::nullopt;
        if (!factor && t_[i].text != "*") return std::nullopt;
        power += factor;
      }
      out.push_back(power);
      total += power;
    }
    if (total == 0 || out.size() > 3) return std::nullopt;
    return out;
  }

  // A literal template argument the block is written with (`gemm<8><<<grid, dim3(8, 8)>>>`,
  // `k<32><<<grid, 32 * 32>>>`): one knob for the argument, the block and the grid's divisors.
  // True when the launch's block is this knob's (found or refused): no other block knob there.
  bool tied_template_knob(const LaunchSite& site) {
    const auto components = block_components(site.config[1]);
    for (size_t i = site.template_args.begin; i < site.template_args.end; ++i) {
      const auto v = integer_literal(t_[i]);
      if (!v || *v <= 1) continue;
      const auto powers = block_powers(components, [&](const CodeToken& tok) { return integer_literal(tok) == *v; });
      // `k<256><<<grid, 256>>>` is the block literal's knob, its template argument moving with it.
      if (!powers || (powers->size() == 1 && powers->front() == 1)) continue;
      const std::string where = fmt::format("the template argument {} at {}", *v, at(t_[i].begin));
      LiteralKnob knob;
      knob.kind = KnobKind::template_tile;
      knob.role = MacroRole::other;
      knob.name = site.kernel + " tile";
      knob.subject = fmt::format("template argument {} of {} and the block written with it, in {}", *v, site.kernel,
                                 launch_subject(site));
      knob.where = where;
      knob.function = name_;
      knob.kernel = site.kernel;
      knob.value = *v;
      knob.line = line_of(text_, t_[i].begin);
      knob.block_powers = *powers;
      template_occurrences(site, *v, knob.occurrences);
      for (Span c : components)
        for (size_t j = c.begin; j < c.end; ++j)
          if (integer_literal(t_[j]) == *v) knob.occurrences.push_back({t_[j].begin, t_[j].end, 0, ""});
      for (const auto& e : grid_extents(site.config[0]))
        if (!grid_occurrences(e, *v, knob.occurrences)) {
          refuse(where, fmt::format("the grid `{}` uses {} in a way that cannot follow a new value",
                                    text_of(text_, t_, site.config[0]), *v));
          return true;
        }
      if (other_args_mention(site, *v)) {
        refuse(where, fmt::format("the launch's other arguments use {} too", *v));
        return true;
      }
      int64_t threads = 1;
      for (int p : *powers)
        for (int k = 0; k < p; ++k) threads *= *v;
      if (auto lb = launch_bounds_of(site.kernel, threads)) knob.occurrences.push_back(*lb);
      out_.literals.push_back(std::move(knob));
      return true;
    }
    return false;
  }

  void knobs_of_launch(const LaunchSite& site) {
    if (tied_template_knob(site)) return;
    Span block = site.config[1];
    Span grid = site.config[0];
    auto extents = grid_extents(grid);
    // A literal block size.
    if (block.size() == 1) {
      if (auto v = integer_literal(t_[block.begin])) {
        std::string where = fmt::format("the literal {} at {}", *v, at(t_[block.begin].begin));
        LiteralKnob knob;
        knob.kind = KnobKind::launch_block;
        knob.role = MacroRole::block_size;
        knob.name = name_ + " block";
        knob.subject = "block size of " + launch_subject(site);
        knob.where = where;
        knob.function = name_;
        knob.kernel = site.kernel;
        knob.axis = 0;
        knob.axes = 1;
        knob.value = *v;
        knob.line = line_of(text_, t_[block.begin].begin);
        knob.occurrences.push_back({t_[block.begin].begin, t_[block.begin].end, 0, ""});
        bool ok = true;
        for (const auto& e : extents) ok = ok && grid_occurrences(e, *v, knob.occurrences);
        if (!ok)
          return refuse(where, fmt::format("the grid `{}` uses {} in a way that cannot follow a new block size",
                                           text_of(text_, t_, grid), *v));
        if (other_args_mention(site, *v))
          return refuse(where, fmt::format("the launch's other arguments use {} too", *v));
        template_occurrences(site, *v, knob.occurrences);
        if (auto lb = launch_bounds_of(site.kernel, *v)) knob.occurrences.push_back(*lb);
        out_.literals.push_back(std::move(knob));
        return;
      }
    }
    // A named block: a constant, a dim3 or a parameter.
    std::vector<Span> components;
    std::string shape_name;
    if (block.size() == 1 && t_[block.begin].kind == CodeToken::identifier) {
      const std::string& n = t_[block.begin].text;
      if (std::any_of(constants_.begin(), constants_.end(), [&](const ConstantLocal& c) { return c.name == n; })) {
        constant_blocks_[n].push_back({&site, 0, 1});
        return;
      }
      if (defines_.count(n) && !inits_.count(n)) {
        define_blocks_[n].push_back(&site);
        return;
      }
      auto it = inits_.find(n);
      if (it != inits_.end() && it->second.dim3) {
        components = it->second.parts;
        shape_name = n;
      } else if (it == inits_.end()) {
        argument_block(n, site);
        return;
      }
    } else if (block.size() >= 3 && t_[block.begin].text == "dim3") {
      components = split_commas(t_, {block.begin + 2, block.end - 1});
      shape_name = "dim3(...)";
    }
    if (components.empty() || components.size() > 3) return;
    // A block written with one file-scope #define (`dim3(TILE, TILE)`): the #define's knob.
    for (const auto& define : defines_) {
      const std::string& name = define.first;
      auto powers = block_powers(components, [&](const CodeToken& tok) { return tok.text == name; });
      if (powers && !inits_.count(name)) {
        define_blocks_[name].push_back(&site);
        define_powers_[name] = *powers;
        return;
      }
    }
    static const char* axes[] = {"x", "y", "z"};
    for (size_t c = 0; c < components.size(); ++c) {
      Span comp = components[c];
      if (comp.size() != 1) continue;
      const CodeToken& tok = t_[comp.begin];
      if (tok.kind == CodeToken::identifier) {
        if (std::any_of(constants_.begin(), constants_.end(),
                        [&](const ConstantLocal& k) { return k.name == tok.text; }))
          constant_blocks_[tok.text].push_back({&site, c, components.size()});
        continue;
      }
      auto v = integer_literal(tok);
      if (!v) continue;
      std::string where = fmt::format("the literal {} at {}", *v, at(tok.begin));
      LiteralKnob knob;
      knob.kind = KnobKind::dim3_component;
      knob.role = components.size() > 1 ? MacroRole::block_dimension : MacroRole::block_size;
      knob.name = fmt::format("{}.{}", shape_name, axes[c]);
      knob.subject = fmt::format("{} dimension of the block `{}` of {}", axes[c], shape_name, launch_subject(site));
      knob.where = where;
      knob.function = name_;
      knob.group = components.size() > 1 ? name_ + ":" + shape_name : "";
      knob.kernel = site.kernel;
      knob.axis = static_cast<int>(c);
      knob.axes = static_cast<int>(components.size());
      knob.value = *v;
      knob.line = line_of(text_, tok.begin);
      knob.occurrences.push_back({tok.begin, tok.end, 0, ""});
      if (c < extents.size()) {
        size_t before = knob.occurrences.size();
        if (!grid_occurrences(extents[c], *v, knob.occurrences))
          return refuse(where, fmt::format("the grid's {} extent `{}` uses {} in a way that cannot follow a new block "
                                           "dimension",
                                           axes[c], text_of(text_, t_, extents[c]), *v));
        // A block dimension of 1 leaves the grid extent undivided: a new value divides it, unless
        // the extent already reads the block's own size (`(cols + block.x - 1) / block.x`).
        bool reads_block = false;
        for (size_t i = extents[c].begin; i < extents[c].end; ++i) reads_block |= t_[i].text == shape_name;
        if (knob.occurrences.size() == before && *v == 1 && !reads_block)
          knob.occurrences.push_back(
              {t_[extents[c].begin].begin, t_[extents[c].end - 1].end, 0, text_of(text_, t_, extents[c])});
      } else if (*v == 1) {
        refuse(where, fmt::format("the grid has no {} extent to divide by a new block dimension", axes[c]));
        continue;
      }
      if (auto lb = launch_bounds_of(site.kernel, *v); lb && components.size() == 1) knob.occurrences.push_back(*lb);
      out_.literals.push_back(std::move(knob));
    }
  }

  void argument_block(const std::string& n, const LaunchSite&) {
    for (const auto& p : launcher_->params) {
      if (p.name != n) continue;
      if (std::any_of(out_.arguments.begin(), out_.arguments.end(),
                      [&](const ArgumentKnob& a) { return a.param == n; }))
        return;
      std::string where = fmt::format("the parameter `{} {}` of {} at {}", p.type, p.name, name_, at(launcher_->begin));
      if (p.type.find("const") != std::string::npos || p.type.find('&') != std::string::npos ||
          p.type.find('*') != std::string::npos)
        return refuse(where, "a const, reference or pointer parameter cannot be reassigned for a probe");
      std::string base = p.type;
      if (auto eq = base.find('='); eq != std::string::npos) base = base.substr(0, eq);
      bool integral = false;
      for (const auto& word : {"int", "unsigned", "long", "short", "size_t"})
        integral |= base.find(word) != std::string::npos;
      if (!integral) return refuse(where, "not an integer parameter");
      out_.arguments.push_back(ArgumentKnob{launcher_->name, n, p.type, launcher_->line, body_begin_});
      return;
    }
  }

  struct ConstantUse {
    const LaunchSite* site;
    size_t component;  // which block dimension it is
    size_t dimensions;
  };

  void knobs_of_constants() {
    for (const auto& c : constants_) {
      const CodeToken& lit = t_[c.literal];
      std::string where = fmt::format("`{}` at {}", c.declaration, at(lit.begin));
      LiteralKnob knob;
      knob.kind = KnobKind::constant;
      knob.name = c.name;
      knob.subject = fmt::format("`{}` in {}", c.name, name_);
      knob.where = where;
      knob.function = name_;
      knob.value = c.value;
      knob.line = line_of(text_, lit.begin);
      knob.occurrences.push_back({lit.begin, lit.end, 0, ""});
      bool used = false;
      for (const auto& site : sites_) {
        for (Span s : site.config)
          for (size_t i = s.begin; i < s.end; ++i) used |= t_[i].text == c.name;
        for (size_t i = site.template_args.begin; i < site.template_args.end; ++i) used |= t_[i].text == c.name;
      }
      if (!used) continue;  // a constant no launch uses is not a launch knob
      knob.role = role_from_name(c.name);
      auto uses = constant_blocks_.find(c.name);
      bool ok = true;
      if (uses != constant_blocks_.end()) {
        knob.kernel = uses->second.front().site->kernel;
        for (const auto& use : uses->second)
          if (use.site->kernel != knob.kernel) knob.kernel.clear();
        // Used as one dimension of blocks of one kernel, it is that dimension.
        if (!knob.kernel.empty() && std::all_of(uses->second.begin(), uses->second.end(), [&](const ConstantUse& u) {
              return u.component == uses->second.front().component && u.dimensions == uses->second.front().dimensions;
            })) {
          knob.axis = static_cast<int>(uses->second.front().component);
          knob.axes = static_cast<int>(uses->second.front().dimensions);
        }
        for (const auto& use : uses->second) {
          knob.role = use.dimensions > 1 ? MacroRole::block_dimension : MacroRole::block_size;
          if (use.dimensions > 1) knob.group = name_ + ":block of " + use.site->kernel;
          auto extents = grid_extents(use.site->config[0]);
          if (use.component < extents.size())
            ok = ok && grid_occurrences(extents[use.component], c.value, knob.occurrences);
          if (use.dimensions == 1)
            if (auto lb = launch_bounds_of(use.site->kernel, c.value)) knob.occurrences.push_back(*lb);
        }
        knob.subject = fmt::format("block size `{}` of {}", c.name, name_);
        if (knob.role == MacroRole::block_dimension)
          knob.subject = fmt::format("block dimension `{}` of {}", c.name, name_);
      }
      if (!ok) {
        refuse(where,
               fmt::format("a grid writes {} as a literal in a way that cannot follow a new `{}`", c.value, c.name));
        continue;
      }
      out_.literals.push_back(std::move(knob));
    }
  }

  // The file's unguarded `#define NAME <integer>`s, defined once, never #undef'd, before the launcher.
  void read_file_defines() {
    std::map<std::string, int> seen;
    std::set<std::string> guarded;
    const std::vector<Directive> directives = read_directives(text_);
    for (size_t i = 0; i < directives.size(); ++i) {
      const Directive& d = directives[i];
      if (d.keyword == "define" || d.keyword == "undef") ++seen[d.name];
      if (d.keyword == "ifndef" && i + 1 < directives.size() && directives[i + 1].name == d.name)
        guarded.insert(d.name);
    }
    for (const auto& d : directives) {
      if (!d.is_object_like_define() || seen[d.name] != 1 || guarded.count(d.name) || d.end > launcher_->begin)
        continue;
      const std::string value = d.value(text_);
      if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) continue;
      defines_[d.name] = FileDefine{d.name,        std::stoll(value),
                                    d.value_begin, d.value_end,
                                    d.line,        text_.substr(d.begin, d.value_end - d.begin)};
    }
  }

  // Whether `name` is used only in the launcher and the kernels it launches: a new value of a
  // #define changes every use, and only these are measured.
  bool used_only_here(const std::string& name) const {
    std::vector<std::pair<size_t, size_t>> here{{launcher_->begin, launcher_->end}};
    for (const auto* k : launched_kernels()) here.emplace_back(k->begin, k->end);
    for (const auto& tok : tokenize_code(text_, 0, text_.size())) {
      if (tok.text != name || tok.kind != CodeToken::identifier) continue;
      if (std::none_of(here.begin(), here.end(),
                       [&](const auto& r) { return tok.begin >= r.first && tok.end <= r.second; }))
        return false;
    }
    return true;
  }

  // A #define used as the block of this launcher's launches (all of one kernel's, or shared).
  void knobs_of_defines() {
    for (const auto& [name, uses] : define_blocks_) {
      const FileDefine& d = defines_.at(name);
      std::string where = fmt::format("`{}` at {}", d.text, at(d.value_begin));
      if (!used_only_here(name)) {
        refuse(where, fmt::format("`{}` is used outside {} and the kernels it launches", name, name_));
        continue;
      }
      LiteralKnob knob;
      knob.kind = KnobKind::define_value;
      knob.role = MacroRole::block_size;
      knob.name = name;
      knob.subject = fmt::format("block size `{}` of {}", name, name_);
      knob.where = where;
      knob.function = name_;
      knob.kernel = uses.front()->kernel;
      for (const auto* site : uses)
        if (site->kernel != knob.kernel) knob.kernel.clear();
      knob.axis = 0;
      knob.axes = 1;
      knob.value = d.value;
      knob.line = d.line;
      knob.occurrences.push_back({d.value_begin, d.value_end, 0, ""});
      int64_t threads = d.value;
      if (auto powers = define_powers_.find(name); powers != define_powers_.end()) {
        // The components of a dim3 block (or a product): each a power of the value.
        knob.kind = KnobKind::template_tile;
        knob.role = MacroRole::other;
        knob.block_powers = powers->second;
        knob.axis = -1;
        knob.axes = 0;
        knob.subject = fmt::format("`{}`, the block of {} and what else it sizes", name, name_);
        threads = 1;
        for (int p : powers->second)
          for (int k = 0; k < p; ++k) threads *= d.value;
      }
      bool ok = true;
      for (const auto* site : uses) {
        auto extents = grid_extents(site->config[0]);
        if (knob.block_powers.empty()) ok = ok && grid_occurrences(extents[0], d.value, knob.occurrences);
        else
          for (const auto& e : extents) ok = ok && grid_occurrences(e, d.value, knob.occurrences);
        if (auto lb = launch_bounds_of(site->kernel, threads)) knob.occurrences.push_back(*lb);
      }
      if (!ok) {
        refuse(where,
               fmt::format("a grid writes {} as a literal in a way that cannot follow a new `{}`", d.value, name));
        continue;
      }
      out_.literals.push_back(std::move(knob));
    }
  }

  void knobs_of_kernel(const ScannedKernel& k) {
    const std::string kernel = unqualified_name(k.name);
    // #pragma unroll N
    for (const auto& d : read_directives(text_)) {
      if (d.begin < k.begin || d.end > k.end || d.keyword != "pragma") continue;
      Tokens dt = tokenize_code(text_, d.begin, d.end, true);
      size_t i = 2;  // after '#' 'pragma'
      if (!is(dt, i, "unroll")) continue;
      ++i;
      if (is(dt, i, "(")) ++i;
      if (i >= dt.size()) continue;
      auto v = integer_literal(dt[i]);
      if (!v) continue;
      LiteralKnob knob;
      knob.kind = KnobKind::pragma_unroll;
      knob.role = MacroRole::other;
      knob.line = d.line;
      knob.name = fmt::format("{} unroll@{}", kernel, d.line);
      knob.subject = fmt::format("#pragma unroll factor in {}", kernel);
      knob.where = fmt::format("`#pragma unroll {}` at {}", *v, at(dt[i].begin));
      knob.function = kernel;
      knob.value = *v;
      knob.occurrences.push_back({dt[i].begin, dt[i].end, 0, ""});
      out_.literals.push_back(std::move(knob));
    }
    // __launch_bounds__(max, min_blocks)
    Tokens kt = tokenize_code(text_, k.begin, k.end);
    for (size_t i = 0; i + 1 < kt.size() && kt[i].text != "{"; ++i) {
      if (kt[i].text != "__launch_bounds__" || kt[i + 1].text != "(") continue;
      size_t close = matching(kt, i + 1, kt.size());
      auto args = split_commas(kt, {i + 2, close});
      if (args.size() < 2 || args[1].size() != 1) break;
      auto v = integer_literal(kt[args[1].begin]);
      if (!v) break;
      LiteralKnob knob;
      knob.kind = KnobKind::min_blocks_per_sm;
      knob.role = MacroRole::other;
      knob.line = line_of(text_, kt[args[1].begin].begin);
      knob.name = kernel + " min blocks";
      knob.subject = fmt::format("__launch_bounds__ minimum blocks per SM of {}", kernel);
      knob.where = fmt::format("the literal {} at {}", *v, at(kt[args[1].begin].begin));
      knob.function = kernel;
      knob.value = *v;
      knob.occurrences.push_back({kt[args[1].begin].begin, kt[args[1].begin].end, 0, ""});
      out_.literals.push_back(std::move(knob));
      break;
    }
  }

  // Two knobs that would rewrite the same bytes (two launches sharing one grid variable) cannot
  // both be tuned; the first found is kept.
  void drop_overlapping() {
    std::vector<LiteralKnob> kept;
    for (auto& knob : out_.literals) {
      bool clash = false;
      for (const auto& k : kept)
        for (const auto& a : k.occurrences)
          for (const auto& b : knob.occurrences) clash |= a.begin < b.end && b.begin < a.end;
      if (clash) refuse(knob.where, "it shares a literal with another knob (" + knob.subject + ")");
      else kept.push_back(std::move(knob));
    }
    out_.literals = std::move(kept);
  }

  void refuse(const std::string& where, const std::string& why) { out_.not_offered.push_back(where + ": " + why); }

  const std::string& text_;
  const ScanResult& scan_;
  std::string file_;
  const ScannedLauncher* launcher_ = nullptr;
  std::string name_;
  size_t body_begin_ = 0;
  Tokens t_;
  std::map<std::string, LocalInit> inits_;
  std::vector<ConstantLocal> constants_;
  std::vector<LaunchSite> sites_;
  std::map<std::string, std::vector<ConstantUse>> constant_blocks_;
  std::map<std::string, FileDefine> defines_;
  std::map<std::string, std::vector<const LaunchSite*>> define_blocks_;
  std::map<std::string, std::vector<int>> define_powers_;  // a #define the block's dim3 is written with
  std::map<std::string, int> launches_of_;                 // kernel -> its launches here
  LauncherKnobs out_;
};

}  // namespace

std::string apply_text_edits(const std::string& text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].begin < edits[i - 1].end)
      throw Error(fmt::format("overlapping source edits at bytes {} and {}", edits[i - 1].begin, edits[i].begin));
  std::string out = text;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->begin, it->end - it->begin, it->text);
  return out;
}

std::string LiteralKnob::edit_name() const {
  switch (kind) {
    case KnobKind::launch_block: return "block size literal in " + function;
    case KnobKind::constant: return fmt::format("`{}` in {}", name, function);
    case KnobKind::define_value: return fmt::format("`#define {}` (the block of {})", name, function);
    case KnobKind::dim3_component: return fmt::format("block dimension {} in {}", name, function);
    case KnobKind::pragma_unroll: return fmt::format("#pragma unroll factor in {} (line {})", function, line);
    case KnobKind::min_blocks_per_sm: return "__launch_bounds__ minimum blocks per SM of " + function;
    case KnobKind::template_tile: return fmt::format("`{}` (the template argument and block) in {}", name, function);
  }
  return name;
}

std::vector<TextEdit> LiteralKnob::edits(int64_t v) const {
  std::vector<TextEdit> out;
  if (v == value) return out;
  for (const auto& o : occurrences) {
    if (!o.wrapped.empty())
      out.push_back({o.begin, o.end, v == 1 ? o.wrapped : fmt::format("(({}) + {} - 1) / {}", o.wrapped, v, v)});
    else out.push_back({o.begin, o.end, std::to_string(v + o.offset)});
  }
  return out;
}

std::string ArgumentKnob::subject() const {
  return fmt::format("{}'s caller-chosen `{}`", unqualified_name(launcher), param);
}

TextEdit ArgumentKnob::probe(int64_t value, int64_t config_value) const {
  return {body_begin, body_begin,
          fmt::format("\n  {} = {};  {}{} ({} in this config)", param, value, kAdvisoryProbeMarker, subject(),
                      config_value)};
}

std::optional<AdvisoryProbe> find_advisory_probe(const std::string& source) {
  size_t marker = source.find(kAdvisoryProbeMarker);
  if (marker == std::string::npos) return std::nullopt;
  size_t line_begin = source.rfind('\n', marker);
  line_begin = line_begin == std::string::npos ? 0 : line_begin + 1;
  size_t line_end = source.find('\n', marker);
  if (line_end == std::string::npos) line_end = source.size();
  AdvisoryProbe probe;
  size_t subject = marker + std::string(kAdvisoryProbeMarker).size();
  probe.subject = source.substr(subject, line_end - subject);
  std::string assignment = source.substr(line_begin, marker - line_begin);
  size_t eq = assignment.find('='), semi = assignment.find(';');
  if (eq != std::string::npos && semi != std::string::npos && semi > eq) {
    probe.value = assignment.substr(eq + 1, semi - eq - 1);
    probe.value.erase(0, probe.value.find_first_not_of(' '));
    probe.value.erase(probe.value.find_last_not_of(' ') + 1);
  } else if (assignment.starts_with("#define ")) {  // a kernel target's block: `#define KB_BLOCK_X 128  // ...`
    size_t end = assignment.find_last_not_of(' ');
    size_t begin = assignment.find_last_of(' ', end);
    if (end != std::string::npos && begin != std::string::npos) probe.value = assignment.substr(begin + 1, end - begin);
  }
  return probe;
}

LauncherKnobs find_launcher_knobs(const std::string& text, const ScanResult& scan, const std::string& launcher,
                                  const std::string& file, const OverloadScore& score) {
  return KnobFinder(text, scan, file).find(launcher, score);
}

LauncherKnobs find_launcher_knobs(const std::string& text, const std::string& launcher, const std::string& file,
                                  const OverloadScore& score) {
  ScanResult scan;
  scan_source(text, file, scan);
  return find_launcher_knobs(text, scan, launcher, file, score);
}

}  // namespace kb::cuda_source
