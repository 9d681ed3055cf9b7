#include "bot/kernel_target_table.h"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <set>

#include "bot/param_types.h"
#include "bot/starter_table_text.h"
#include "config/config.h"
#include "config/kernel_target.h"
#include "cuda_source/buffer_extents.h"
#include "cuda_source/preprocessor_directives.h"

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

KernelTargetDraft render_kernel_target(const cuda_source::ScannedKernel& k, const std::string& kernel_file_text,
                                       const cuda_source::KernelLaunchSite& site, const std::string& site_file_text,
                                       const std::string& name, const cuda_source::TypeAliases& aliases) {
  KernelTargetDraft draft;
  std::vector<ParamType> types;
  for (const auto& param : k.params) {
    types.push_back(classify_param(param.type, aliases));
    if (types.back().kind != ParamKind::pointer && types.back().kind != ParamKind::scalar && draft.not_drivable.empty())
      draft.not_drivable = fmt::format("kernel parameter '{}' ({}) cannot be driven: {}", param.name, param.type,
                                       types.back().kind == ParamKind::stream ? "a kernel takes no stream"
                                                                              : types.back().why_not_drivable);
  }
  auto extents = cuda_source::buffer_extents(kernel_file_text.substr(k.begin, k.end - k.begin), k.params);
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
  std::vector<std::string> size_names;
  for (const auto& p : k.params)
    if (sizes.count(p.name)) size_names.push_back(p.name);

  // The launch as the site writes it, and what the harness's launch is guessed to be.
  const auto& parts = site.launch.config_parts;
  auto knobs = cuda_source::find_kernel_knobs(site_file_text, k.name, site.file);
  std::string block = "256", block_note = "check: threads per block (the launch at " + site.where() + " writes `" +
                                          (parts.size() > 1 ? parts[1] : "") + "`)";
  if (knobs.block) {
    block.clear();
    for (int64_t v : *knobs.block) block += (block.empty() ? "" : ", ") + std::to_string(v);
    block_note = "as the launch at " + site.where() + " writes it; the tuner varies it there (a PR edits that launch)";
  } else if (parts.size() > 1 && cuda_source::integer_value(parts[1])) {
    block = parts[1];
  }
  const size_t dims = config::launch_components(block).size();
  // The grid covers the first output's elements with the block, so it follows a tuned block.
  std::string covered;
  for (size_t i = 0; i < k.params.size() && covered.empty(); ++i)
    if (types[i].kind == ParamKind::pointer && !types[i].const_pointee) {
      const auto& e = extents[k.params[i].name];
      if (e.known)
        for (const auto& s : e.sizes) covered += (covered.empty() ? "" : "*") + s;
    }
  std::string grid = dims == 1 ? "ceil_div(" + (covered.empty() ? "TODO" : covered) + ", block_x)" : "";
  if (dims > 1) grid = "ceil_div(TODO, block_x), ceil_div(TODO, block_y)";
  std::string shared = parts.size() > 2 && cuda_source::integer_value(parts[2]) ? parts[2] : "0";

  std::string& out = draft.text;
  out += fmt::format("# {}: {} launches {} inline: a kernel target (the harness launches the kernel itself)\n",
                     site.where(), site.function, k.name);
  out += "[[kernel]]\nname = " + toml_string(name) + "\nsource = " + toml_string(k.file) +
         "\nglobal = " + toml_string(k.name) + "\n";
  if (!k.template_params.empty())
    out += "template_args = " + toml_string(template_guess(k.template_params)) +
           "   # check: the template arguments of the launch (template <" + k.template_params + ">)\n";
  out += "grid = " + toml_string(grid) + "   # check: blocks to cover the work (the launch writes `" +
         (parts.empty() ? "" : parts[0]) + "`); read block_x so the grid follows a tuned block\n";
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
      out += std::string("  role = \"") + (t.const_pointee ? "input" : "output") + "\"\n  dtype = \"" + dtype +
             "\"\n  count = " + toml_string(count.empty() ? config::todo_marker : count) + "\n";
      notes.push_back(count.empty() ? "TODO: the element count (the kernel's indexing did not tell)"
                                    : "check: count guessed from the kernel's indexing");
      if (!t.const_pointee) notes.push_back("check: output, or inout if the kernel also reads it");
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
