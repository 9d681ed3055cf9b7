#include "bot/onboarding/kernel_target_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "bot/onboarding/param_evidence.h"
#include "bot/onboarding/param_types.h"
#include "bot/onboarding/starter_table_text.h"
#include "config/config.h"
#include "config/kernel_target.h"
#include "cuda_source/reading/buffer_extents.h"
#include "cuda_source/reading/launch_as_written.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::bot {
namespace {

// "typename T, int VEC = 4" -> a guess per template parameter: float for a type, its default or 1.
std::string template_guess(const std::string& params) {
  std::string out;
  for (const auto& p : cuda_source::split_params(params)) {
    std::string value = !p.default_value.empty()                                            ? p.default_value
                        : p.type.find("typename") != std::string::npos || p.type == "class" ? "float"
                                                                                            : "1";
    out += (out.empty() ? "" : ", ") + value;
  }
  return out;
}

// The byte offset where 1-based `line` of `text` starts.
size_t offset_of_line(const std::string& text, int line) {
  size_t at = 0;
  for (int l = 1; l < line && at != std::string::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? text.size() : at;
}

// The integer a launch writes through `name` before byte `site`: a literal, the last
// `const int NAME = 16;` (or constexpr) or a `#define NAME 16`.
std::optional<int64_t> constant_before(const std::string& text, size_t site, const std::string& name) {
  if (auto v = cuda_source::integer_value(name)) return v;
  static const std::regex word(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(name, word)) return std::nullopt;
  const std::string before = text.substr(0, std::min(site, text.size()));
  const std::regex local(R"(\b(const|constexpr)\b[^;=(){}]*\b)" + name + R"(\s*=\s*([0-9]+)[uUlL]*\s*;)");
  const std::regex define(R"((^|\n)\s*#\s*define\s+)" + name + R"(\s+\(?([0-9]+)[uUlL]*\)?\s*(\n|$))");
  std::optional<int64_t> out;
  for (const auto* re : {&define, &local})
    for (auto it = std::sregex_iterator(before.begin(), before.end(), *re); it != std::sregex_iterator(); ++it)
      out = cuda_source::integer_value((*it)[2].str());
  return out;
}

struct LaunchShape {
  std::string block = "256", block_note;
  std::string grid, grid_note;       // grid empty: the launch did not tell
  std::set<std::string> grid_sizes;  // the kernel's parameters the grid reads
};

// `expression` (in the launching function's names) in the kernel's names: each name the launch
// passes as an integer argument becomes that parameter, each constant its value; nothing when a
// name is neither.
std::optional<std::string> in_kernel_names(const std::string& expression, const cuda_source::ScannedKernel& k,
                                           const cuda_source::KernelLaunchSite& site,
                                           const std::vector<ParamType>& types, const std::string& text, size_t at,
                                           std::set<std::string>& used) {
  const auto& args = site.launch.arguments;
  for (size_t j = 0; j < args.size() && j < k.params.size(); ++j)  // `x.numel` passed as n
    if (args[j] == expression && types[j].kind == ParamKind::scalar) {
      used.insert(k.params[j].name);
      return k.params[j].name;
    }
  std::string out;
  size_t copied = 0;
  const auto tokens = cuda_source::tokenize_code(expression);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto& t = tokens[i];
    if (t.kind != cuda_source::CodeToken::identifier) continue;
    if (i + 1 < tokens.size() && tokens[i + 1].text == "(" && (t.text == "min" || t.text == "max")) continue;
    std::string replacement;
    for (size_t j = 0; j < args.size() && j < k.params.size() && replacement.empty(); ++j)
      if (args[j] == t.text && types[j].kind == ParamKind::scalar && types[j].dtype && !dtype_is_float(*types[j].dtype))
        replacement = k.params[j].name;
    if (!replacement.empty()) used.insert(replacement);
    else if (auto v = constant_before(text, at, t.text)) replacement = std::to_string(*v);
    else return std::nullopt;
    out += expression.substr(copied, t.begin - copied) + replacement;
    copied = t.end;
  }
  return out + expression.substr(copied);
}

// The block and grid as the site writes them: a literal or dim3 block (a one-site kernel's block
// knob), a grid whose components round the kernel's sizes up to whole blocks.
LaunchShape launch_shape(const cuda_source::ScannedKernel& k, const cuda_source::KernelLaunchSite& site,
                         const std::string& text, const std::vector<ParamType>& types) {
  LaunchShape out;
  const auto& parts = site.launch.config_parts;
  const size_t at = offset_of_line(text, site.line + 1);  // the definitions before the launch's line and on it
  out.block_note = "check: threads per block (the launch at " + site.where() + " writes `" +
                   (parts.size() > 1 ? parts[1] : "") + "`)";
  std::vector<int64_t> block;
  auto knobs = cuda_source::find_kernel_knobs(text, k.name, site.file);
  if (knobs.block) {
    block = *knobs.block;
    out.block_note = "as the launch at " + site.where() +
                     " writes it; the tuner varies it there (a PR edits that launch)";
  } else if (parts.size() > 1) {
    if (auto comps = cuda_source::dim3_components(text, at, parts[1])) {
      for (const auto& c : *comps)
        if (auto v = constant_before(text, at, c)) block.push_back(*v);
      if (block.size() != comps->size()) block.clear();
      else out.block_note = "check: as the launch at " + site.where() + " writes it (`" + parts[1] + "`)";
    }
  }
  if (!block.empty()) {
    out.block.clear();
    for (int64_t v : block) out.block += (out.block.empty() ? "" : ", ") + std::to_string(v);
  }
  if (parts.empty()) return out;
  auto comps = cuda_source::dim3_components(text, at, parts[0]);
  if (!comps || comps->empty() || comps->size() > 3) return out;
  static const char* axis[] = {"block_x", "block_y", "block_z"};
  std::string grid;
  for (size_t d = 0; d < comps->size(); ++d) {
    auto ceil = cuda_source::ceil_division((*comps)[d]);
    auto count = in_kernel_names(ceil ? ceil->count : (*comps)[d], k, site, types, text, at, out.grid_sizes);
    if (!count) return out;
    std::string component = *count;
    if (ceil) {
      std::string divisor;
      for (size_t a = 0; a < 3 && parts.size() > 1; ++a)
        if (ceil->divisor == parts[1] + "." + std::string(1, static_cast<char>('x' + a))) divisor = axis[a];
      auto value = divisor.empty() ? constant_before(text, at, ceil->divisor) : std::nullopt;
      if (divisor.empty() && !value) return out;
      if (divisor.empty()) divisor = d < block.size() && block[d] == *value ? axis[d] : std::to_string(*value);
      component = "ceil_div(" + *count + ", " + divisor + ")";
    }
    grid += (grid.empty() ? "" : ", ") + component;
  }
  out.grid = grid;
  out.grid_note = "check: the launch at " + site.where() + " writes `" + parts[0] +
                  "`, here in the kernel's names (block_x... follow a tuned block)";
  return out;
}

}  // namespace

std::optional<std::string> undrivable_launcher(const cuda_source::ScannedLauncher& l,
                                               const cuda_source::TypeAliases& aliases) {
  if (cuda_source::unqualified_name(l.name) == "main") return "main() is the program, not a function to call";
  for (size_t i = 0; i < l.params.size(); ++i) {
    ParamType t = classify_param(l.params[i].type, aliases);
    if (t.kind == ParamKind::opaque)
      return fmt::format("parameter '{}' ({}) cannot be driven: {}",
                         l.params[i].name.empty() ? "#" + std::to_string(i + 1) : l.params[i].name, l.params[i].type,
                         t.why_not_drivable);
  }
  return std::nullopt;
}

KernelTargetDraft render_kernel_target(const cuda_source::ScannedKernel& k,
                                       const std::vector<cuda_source::KernelLaunchSite>& sites, const TextOf& text_of,
                                       const std::string& name, const cuda_source::TypeAliases& aliases,
                                       const cuda_source::FunctionLookup& lookup) {
  KernelTargetDraft draft;
  const std::string& kernel_file_text = text_of(k.file);
  const cuda_source::KernelLaunchSite& site = sites.front();
  const std::string& site_file_text = text_of(site.file);
  std::vector<ParamType> types;
  for (const auto& param : k.params) {
    types.push_back(classify_param(param.type, aliases));
    if (types.back().kind != ParamKind::pointer && types.back().kind != ParamKind::scalar && draft.not_drivable.empty())
      draft.not_drivable = fmt::format("kernel parameter '{}' ({}) cannot be driven: {}", param.name, param.type,
                                       types.back().kind == ParamKind::stream ? "a kernel takes no stream"
                                                                              : types.back().why_not_drivable);
  }
  auto extents = cuda_source::buffer_extents(kernel_file_text.substr(k.begin, k.end - k.begin), k.params);
  // Roles from how the body uses each buffer (bot/onboarding/param_evidence.h), else from constness.
  const auto uses = cuda_source::buffer_uses({&kernel_file_text, k.file, k.begin, k.end, k.params}, lookup);
  std::vector<RoleFromUses> by_use(k.params.size());
  std::vector<ArgRole> roles(k.params.size(), ArgRole::input);
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (types[i].kind != ParamKind::pointer) continue;
    if (auto u = uses.find(k.params[i].name); u != uses.end()) by_use[i] = role_from_uses(u->second, k.file);
    roles[i] = by_use[i].role ? *by_use[i].role : types[i].const_pointee ? ArgRole::input : ArgRole::output;
  }
  // Sizes: the integers an extent uses, or whose name says size.
  static const std::regex size_like(
      R"(^(n|m|k|[a-z]?size|len(gth)?|count|rows?|cols?|columns|dim|d|c|h|w|b|t|batch|channels|width|height|depth|seq(_len)?|vocab|heads?|stride|ld[a-z]?|(num|n)_?\w*|\w*_(size|len|dim|count|rows|cols|numel)|numel|[A-Z]|[NMKBTCHWDV]\w*)$)");
  std::set<std::string> sizes;
  for (const auto& [buffer, e] : extents)
    if (e.known) sizes.insert(e.sizes.begin(), e.sizes.end());
  for (size_t i = 0; i < k.params.size(); ++i)
    if (types[i].kind == ParamKind::scalar && types[i].dtype && !dtype_is_float(*types[i].dtype) &&
        std::regex_match(k.params[i].name, size_like))
      sizes.insert(k.params[i].name);

  // The launch as the site writes it, and what the harness's launch is guessed to be.
  const auto& parts = site.launch.config_parts;
  const LaunchShape shape = launch_shape(k, site, site_file_text, types);
  for (const auto& s : shape.grid_sizes) sizes.insert(s);
  std::vector<std::string> size_names;
  for (const auto& p : k.params)
    if (sizes.count(p.name)) size_names.push_back(p.name);
  std::string block = shape.block, block_note = shape.block_note;
  const size_t dims = config::launch_components(block).size();
  // Else the grid covers the first output's elements with the block, so it follows a tuned block.
  std::string covered;
  for (size_t i = 0; i < k.params.size() && covered.empty(); ++i)
    if (types[i].kind == ParamKind::pointer && (roles[i] == ArgRole::output || roles[i] == ArgRole::inout)) {
      const auto& e = extents[k.params[i].name];
      if (e.known)
        for (const auto& s : e.sizes) covered += (covered.empty() ? "" : "*") + s;
    }
  std::string grid = shape.grid;
  if (grid.empty()) grid = dims == 1 ? "ceil_div(" + (covered.empty() ? "TODO" : covered) + ", block_x)" : "";
  if (grid.empty())
    grid = dims == 2 ? "ceil_div(TODO, block_x), ceil_div(TODO, block_y)"
                     : "ceil_div(TODO, block_x), ceil_div(TODO, block_y), ceil_div(TODO, block_z)";
  std::string shared = parts.size() > 2 && cuda_source::integer_value(parts[2]) ? parts[2] : "0";

  // The template arguments the code instantiates the kernel with, where it writes them as literals.
  std::vector<std::string> instantiated;
  std::set<std::string> files_read;
  for (const auto* file : {&k.file, &site.file})
    if (files_read.insert(*file).second)
      for (const auto& a : cuda_source::literal_template_arguments(text_of(*file), k.name))
        if (std::find(instantiated.begin(), instantiated.end(), a) == instantiated.end()) instantiated.push_back(a);
  for (const auto& other : sites)
    if (files_read.insert(other.file).second)
      for (const auto& a : cuda_source::literal_template_arguments(text_of(other.file), k.name))
        if (std::find(instantiated.begin(), instantiated.end(), a) == instantiated.end()) instantiated.push_back(a);

  std::string& out = draft.text;
  out += fmt::format("# {}: {} launches {} inline: a kernel target (the harness launches the kernel itself)\n",
                     site.where(), site.function, k.name);
  out += "[[kernel]]\nname = " + toml_string(name) + "\nsource = " + toml_string(k.file) +
         "\nglobal = " + toml_string(k.name) + "\n";
  if (!k.template_params.empty() && !instantiated.empty()) {
    std::string others;
    for (size_t i = 1; i < instantiated.size(); ++i)
      others += (others.empty() ? "" : ", ") + ("<" + instantiated[i] + ">");
    out += "template_args = " + toml_string(instantiated.front()) + "   # as the code instantiates it (template <" +
           k.template_params + ">)" + (others.empty() ? "" : "; check: also launched with " + others) + "\n";
  } else if (!k.template_params.empty()) {
    out += "template_args = " + toml_string(template_guess(k.template_params)) +
           "   # check: the template arguments of the launch (template <" + k.template_params + ">)\n";
  }
  out += "grid = " + toml_string(grid) + "   # " +
         (shape.grid.empty()
              ? "check: blocks to cover the work (the launch writes `" + (parts.empty() ? "" : parts[0]) +
                    "`); read block_x so the grid follows a tuned block"
              : shape.grid_note) +
         "\n";
  out += "block = " + toml_string(block) + "   # " + block_note + "\n";
  out += "shared_bytes = " + toml_string(shared) + "   # check: dynamic shared memory" +
         (parts.size() > 2 ? " (the launch writes `" + parts[2] + "`)" : " (the launch passes none)") + "\n";
  out += starter_sizes_line(size_names);
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    const ParamType& t = types[i];
    std::string dtype = t.dtype ? to_string(*t.dtype) : "float32";
    out += "  [[kernel.arg]]   # " + p.type + " " + p.name + "\n  name = " + toml_string(p.name) + "\n";
    std::vector<std::string> notes;
    if (!t.aliases.empty()) notes.push_back("check: " + describe_aliases(t.aliases));
    if (t.kind == ParamKind::pointer) {
      std::string count;
      if (extents[p.name].known)
        for (const auto& s : extents[p.name].sizes) count += (count.empty() ? "" : "*") + s;
      const RoleFromUses& use = by_use[i];
      out += std::string("  role = \"") + to_string(roles[i]) + "\"" + (use.role ? "   # " + use.note : "") +
             "\n  dtype = \"" + dtype + "\"\n  count = " + toml_string(count.empty() ? config::todo_marker : count) +
             "\n";
      notes.push_back(count.empty() ? "TODO: the element count (the kernel's indexing did not tell)"
                                    : "check: count guessed from the kernel's indexing");
      if (!use.role && !use.why_not.empty()) notes.push_back("check: " + use.why_not + "; role guessed from its type");
      if (!use.role && !t.const_pointee) notes.push_back("check: output, or inout if the kernel also reads it");
    } else if (t.kind == ParamKind::scalar && sizes.count(p.name)) {
      std::string size_dtype = t.dtype && (*t.dtype == DType::int64 || *t.dtype == DType::int32) ? dtype : "int32";
      out += "  role = \"size\"\n  dtype = \"" + size_dtype + "\"\n  value = " + toml_string(p.name) + "\n";
    } else if (t.kind == ParamKind::scalar && t.dtype && !dtype_is_float(*t.dtype)) {
      out += "  role = \"scalar\"\n  dtype = \"" + dtype + "\"\n  value = 3\n";
      notes.push_back("check: an integer that sizes no buffer; a realistic value");
    } else if (t.kind == ParamKind::scalar) {
      out += "  role = \"scalar\"\n  dtype = \"" + dtype + "\"\n  value = 1.5\n";
      notes.push_back("check: a realistic value (omit `value` for a random one per trial)");
    } else {
      out += "  role = \"input\"   # cannot be driven\n";
    }
    for (const auto& n : notes) out += "  # " + n + "\n";
  }
  return draft;
}

}  // namespace kb::bot
