#include "bot/commands/init/starter_config.h"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "bot/commands/init/starter_roles.h"
#include "bot/commands/init/starter_sources.h"
#include "bot/onboarding/kernel_target_table.h"
#include "bot/onboarding/param_evidence.h"
#include "bot/onboarding/param_types.h"
#include "bot/onboarding/starter_table_text.h"
#include "bot/onboarding/target_inventory.h"
#include "common/file_io.h"
#include "config/config_writer.h"
#include "cuda_source/reading/buffer_extents.h"
#include "cuda_source/reading/include_dirs_guess.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::embedded {
extern const char* const starter_header;
}

namespace kb::bot {
namespace {

using cuda_source::ScannedLauncher;
using cuda_source::ScannedParam;

std::set<std::string> identifiers_in(const std::string& text) {
  static const std::regex word(R"([A-Za-z_]\w*)");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// Whether `name` and `file` pass the --kernel and --file choices (each, when given).
bool chosen(const std::string& name, const std::string& file, const StarterOptions& o) {
  bool by_name = o.kernel_patterns.empty() || std::any_of(o.kernel_patterns.begin(), o.kernel_patterns.end(),
                                                          [&](const std::string& p) { return name_matches(name, p); });
  bool by_file = o.files.empty() || std::any_of(o.files.begin(), o.files.end(), [&](const std::string& f) {
                   auto want = std::filesystem::path(f).lexically_normal().string();
                   return file == want || (file.size() > want.size() && file.ends_with("/" + want));
                 });
  return by_name && by_file;
}

// Index-like names: an integer buffer with one of these is probably read as indices, which
// random values would send out of bounds.
bool index_like(const std::string& name) {
  static const std::regex re(
      R"((^|_)(ids?|idx|index|indices|tokens?|offsets?|labels?|targets?|positions?|perm)(_|$|s$))", std::regex::icase);
  return std::regex_search(name, re);
}

// Reads files once; kernels' bodies are taken from them by byte range.
class SourceTexts {
 public:
  SourceTexts(std::filesystem::path root, std::vector<std::string> include_dirs)
      : root_(std::move(root)), include_dirs_(std::move(include_dirs)) {}
  const std::string& text(const std::string& file) {
    auto it = texts_.find(file);
    if (it == texts_.end()) it = texts_.emplace(file, try_read_text_file(root_ / file).value_or("")).first;
    return it->second;
  }
  const std::filesystem::path& root() const { return root_; }
  const std::vector<std::string>& include_dirs() const { return include_dirs_; }
  const cuda_source::TypeAliases& aliases(const std::string& file) {
    auto it = aliases_.find(file);
    if (it == aliases_.end())
      it = aliases_.emplace(file, cuda_source::collect_type_aliases(root_, file, include_dirs_)).first;
    return it->second;
  }

 private:
  std::filesystem::path root_;
  std::vector<std::string> include_dirs_;
  std::map<std::string, std::string> texts_;
  std::map<std::string, cuda_source::TypeAliases> aliases_;
};

// The parameters of a launcher that set up the launch rather than the data: those in the block
// or shared-memory position of a <<<...>>>, and those in the grid position that the kernel is not
// also given (n in `(n + 255) / 256` is a size; `blocks` alone is a launch setting).
std::set<std::string> launch_setting_params(const ScannedLauncher& l) {
  std::set<std::string> params, out;
  for (const auto& p : l.params) params.insert(p.name);
  for (const auto& launch : l.launches) {
    if (!launch.in_launcher_scope()) continue;  // a helper's grid and block, in the helper's names
    std::set<std::string> passed;
    for (const auto& a : launch.arguments)
      for (const auto& id : identifiers_in(a)) passed.insert(id);
    for (size_t i = 0; i < launch.config_parts.size() && i < 3; ++i)
      for (const auto& id : identifiers_in(launch.config_parts[i]))
        if (params.count(id) && (i > 0 || !passed.count(id))) out.insert(id);
  }
  return out;
}

// A buffer's count over the launcher's size parameters, from the kernels it is passed to: empty
// when no launch tells.
std::string guess_count(const std::string& buffer, const ScannedLauncher& l, const cuda_source::ScanResult& scan,
                        SourceTexts& texts, const std::set<std::string>& sizes) {
  std::set<std::string> needed;
  bool known = false;
  for (const auto& launch : l.launches) {
    if (!launch.in_launcher_scope()) continue;  // the helper's arguments are the helper's names
    // The first definition that fits, found through the scan's index (not a pass over every kernel).
    if (const cuda_source::ScannedKernel* found = cuda_source::kernel_definition(scan, launch.kernel,
                                                                                 launch.arguments.size())) {
      const auto& k = *found;
      auto extents = cuda_source::buffer_extents(texts.text(k.file).substr(k.begin, k.end - k.begin), k.params);
      for (size_t j = 0; j < launch.arguments.size(); ++j) {
        if (launch.arguments[j] != buffer) continue;
        const auto& e = extents[k.params[j].name];
        if (!e.known) return "";
        for (const auto& s : e.sizes) {
          // The kernel's size parameter, back to what the launcher passed for it.
          auto at = std::find_if(k.params.begin(), k.params.end(), [&](const ScannedParam& p) { return p.name == s; });
          const std::string& passed = launch.arguments[static_cast<size_t>(at - k.params.begin())];
          if (!sizes.count(passed)) return "";
          needed.insert(passed);
        }
        known = true;
      }
    }
  }
  if (!known) return "";
  std::string count;
  for (const auto& p : l.params)
    if (needed.count(p.name)) count += (count.empty() ? "" : "*") + p.name;
  return count;
}

struct Table {
  std::string text;
  std::string not_drivable;                   // why the table is written commented out; empty: it is live
  std::set<std::string> sizes;                // the parameters written as sizes
  std::map<std::string, std::string> counts;  // buffer -> the count its kernels' indexing gave
  std::string signature;                      // the parameters' types and names, for siblings' counts
};

// "int M, int N, float* A": two launchers with the same are variants of one operation (a naive and
// a tiled GEMM), whose buffers hold as many elements.
std::string signature(const ScannedLauncher& l) {
  std::string out;
  for (const auto& p : l.params) out += p.type + " " + p.name + ", ";
  return out;
}

// What the other launchers of the same file say. `sizes`: parameters they take as sizes; a name
// that is an extent there is one here too, even where it also stands in a <<<...>>>. `counts`:
// buffer name -> {count, launcher}, from the launchers of the same signature, for a buffer whose
// kernel here indexes it in a way the guess cannot follow (a tiled kernel that advances its
// pointers by tiles).
struct Siblings {
  std::set<std::string> sizes;
  std::map<std::string, std::pair<std::string, std::string>> counts;
};

Table render_table(const ScannedLauncher& l, const std::string& name, const cuda_source::ScanResult& scan,
                   SourceTexts& texts, const Siblings& siblings = {}) {
  const std::set<std::string>& sibling_sizes = siblings.sizes;
  Table table;
  table.signature = signature(l);
  const auto& aliases = texts.aliases(l.file);
  const ParamEvidence evidence = read_param_evidence(l, scan, [&](const std::string& file) -> const std::string& {
    return texts.text(file);
  });
  std::set<std::string> settings = launch_setting_params(l);
  std::set<std::string> size_in_sibling;
  for (const auto& s : sibling_sizes)
    if (settings.erase(s)) size_in_sibling.insert(s);
  std::vector<ParamType> types;
  std::set<std::string> sizes;
  for (size_t i = 0; i < l.params.size(); ++i) {
    const auto& p = l.params[i];
    types.push_back(classify_param(p.type, aliases));
    const ParamType& t = types.back();
    if (t.kind == ParamKind::opaque && table.not_drivable.empty())
      table.not_drivable = "parameter '" + (p.name.empty() ? "#" + std::to_string(i + 1) : p.name) + "' (" + p.type +
                           ") cannot be driven: " + t.why_not_drivable + "; no [[kernel.arg]] role supplies one";
    if (t.kind == ParamKind::scalar && !dtype_is_float(*t.dtype) && t.element != "bool" && !settings.count(p.name) &&
        !p.name.empty())
      sizes.insert(p.name);
    if (auto host = evidence.host_pointers.find(p.name);
        host != evidence.host_pointers.end() && t.kind == ParamKind::pointer && table.not_drivable.empty())
      table.not_drivable = "parameter '" + p.name + "' is a host pointer (" + host->second +
                           "): kernelbot lends device buffers, so it cannot drive this launcher; point a [[kernel]] "
                           "at one that takes device pointers";
  }
  // Buffer counts over the integer candidates; a candidate no count uses is a size only if its
  // name says so (n, rows, dim, num_heads...), else a plain integer scalar (a multiplier, a flag).
  std::map<std::string, std::string> counts;
  std::map<std::string, std::string> count_from_sibling;  // buffer -> the sibling launcher
  std::set<std::string> in_counts;
  for (size_t i = 0; i < l.params.size(); ++i)
    if (types[i].kind == ParamKind::pointer) {
      const std::string& buffer = l.params[i].name;
      counts[buffer] = guess_count(buffer, l, scan, texts, sizes);
      if (!counts[buffer].empty()) table.counts[buffer] = counts[buffer];
      auto sibling = siblings.counts.find(buffer);
      if (counts[buffer].empty() && sibling != siblings.counts.end()) {
        const auto names = identifiers_in(sibling->second.first);
        if (std::all_of(names.begin(), names.end(), [&](const std::string& n) { return sizes.count(n) > 0; })) {
          counts[buffer] = sibling->second.first;
          count_from_sibling[buffer] = sibling->second.second;
        }
      }
      for (const auto& id : identifiers_in(counts[buffer])) in_counts.insert(id);
    }
  static const std::regex size_like(
      R"(^(n|m|k|[a-z]?size|len(gth)?|count|rows?|cols?|columns|dim|d|c|h|w|b|t|batch|channels|width|height|depth|seq(_len)?|vocab|heads?|stride|ld[a-z]?|(num|n)_?\w*|\w*_(size|len|dim|count|rows|cols)|[A-Z]|[NMKBTCHWDV]\w*)$)");
  // ...or if the kernel compares it or indexes with it (an extent), or a sibling launcher sizes with it.
  for (auto it = sizes.begin(); it != sizes.end();)
    it = (in_counts.count(*it) || std::regex_match(*it, size_like) || evidence.bounds_in_kernel.count(*it) ||
          size_in_sibling.count(*it))
             ? std::next(it)
             : sizes.erase(it);
  table.sizes = sizes;

  const StarterRoles decided = starter_roles(l.params, types, evidence, l.file);
  std::vector<ArgRole> roles = decided.roles;
  const std::vector<RoleFromUses>& by_use = decided.by_use;
  const auto compared = [](ArgRole r) { return r == ArgRole::output || r == ArgRole::inout; };
  bool has_output = false;
  for (size_t i = 0; i < l.params.size(); ++i) has_output |= types[i].kind == ParamKind::pointer && compared(roles[i]);
  if (table.not_drivable.empty() && !has_output)
    table.not_drivable = "no buffer parameter is written (no output or inout), so there is no result to verify";

  std::string kernels;
  for (const auto& launch : l.launches)
    if (kernels.find(launch.kernel) == std::string::npos) kernels += (kernels.empty() ? "" : ", ") + launch.kernel;
  std::string& out = table.text;
  out += "[[kernel]]\nname = " + toml_string(name) + "\nsource = " + toml_string(l.file) +
         "\nlauncher = " + toml_string(l.name) + "\n";
  std::vector<std::string> size_names;
  for (const auto& p : l.params)
    if (sizes.count(p.name)) size_names.push_back(p.name);
  out += starter_sizes_line(size_names);
  std::set<std::string> count_todo;
  for (size_t i = 0; i < l.params.size(); ++i) {
    const auto& p = l.params[i];
    const ParamType& t = types[i];
    std::string pname = p.name.empty() ? "arg" + std::to_string(i) : p.name;
    std::vector<std::string> notes;
    out += "  [[kernel.arg]]   # " + p.type + (p.name.empty() ? "" : " " + p.name) +
           (p.default_value.empty() ? "" : " = " + p.default_value) + "\n";
    out += "  name = " + toml_string(pname) + "\n";
    if (p.name.empty()) notes.push_back("check: an unnamed parameter was given a placeholder name");
    std::string dtype = t.dtype ? to_string(*t.dtype) : "float32";
    if (!t.aliases.empty()) notes.push_back("check: " + describe_aliases(t.aliases));
    if (t.kind == ParamKind::pointer) {
      if (!t.dtype)
        notes.push_back("check: element type '" + t.element + "' has no dtype kernelbot knows; float32 guessed");
      std::string role = to_string(roles[i]);
      std::string count = counts[p.name];
      const RoleFromUses& use = by_use[i];
      out += "  role = \"" + role + "\"" + (use.role ? "   # " + use.note : "") + "\n  dtype = \"" + dtype + "\"\n";
      out += "  count = " + toml_string(count.empty() ? config::todo_marker : count) + "\n";
      if (count.empty()) count_todo.insert(pname);
      else if (count_from_sibling.count(p.name))
        notes.push_back("check: count as for " + p.name + " of " + count_from_sibling.at(p.name) +
                        " in this file (this kernel's indexing did not tell)");
      else notes.push_back("check: count guessed from the kernel's indexing");
      if (!use.role && !use.why_not.empty()) notes.push_back("check: " + use.why_not + "; role guessed from its type");
      if (!use.role && role == "output") notes.push_back("check: output, or inout if the kernel also reads it");
      if (auto host = evidence.host_pointers.find(p.name); host != evidence.host_pointers.end())
        notes.push_back("a host pointer: " + host->second + "; kernelbot lends device buffers");
      if (!use.role && !t.const_pointee && roles[i] == ArgRole::input)
        notes.push_back("check: input: the kernel takes it as const (" + evidence.const_in_kernel.at(p.name) + ")");
      if (roles[i] == ArgRole::workspace)
        notes.push_back("check: workspace (lent and poisoned before each call, never compared) by its name; "
                        "output if it holds a result");
      if (t.element == "bool")
        notes.push_back("check: bool elements as uint8: add range = [0, 2] to an input so every value is 0 or 1");
      if (t.dtype && !dtype_is_float(*t.dtype) && index_like(p.name))
        notes.push_back("check: integer indices? add range = [0, \"<size they index>\"] so values stay in bounds");
    } else if (t.kind == ParamKind::stream) {
      out += "  role = \"stream\"\n";
    } else if (t.kind == ParamKind::scalar && settings.count(p.name)) {
      auto literal = cuda_source::integer_value(p.default_value);
      out += "  role = \"scalar\"\n  dtype = \"int32\"\n  value = " + (literal ? std::to_string(*literal) : "256") +
             "\n";
      notes.push_back(literal ? "launch setting (used in <<<...>>>): its default argument"
                              : "check: launch setting (used in <<<...>>>): a value the code supports");
    } else if (t.kind == ParamKind::scalar && t.element == "bool") {
      const std::string value = p.default_value == "false" || p.default_value == "0" ? "0" : "1";
      out += "  role = \"scalar\"\n  dtype = \"uint8\"\n  value = " + value + "\n";
      notes.push_back(std::string("check: a bool flag, passed as uint8 (0 false, 1 true): ") +
                      (p.default_value.empty() ? "the path worth measuring" : "its default argument"));
    } else if (t.kind == ParamKind::scalar && sizes.count(p.name)) {
      std::string size_dtype = (*t.dtype == DType::int64 || *t.dtype == DType::int32) ? dtype : "int32";
      out += "  role = \"size\"\n  dtype = \"" + size_dtype + "\"\n  value = " + toml_string(p.name) + "\n";
      if (size_dtype != dtype) notes.push_back("check: a " + p.type + " size passed as int32");
      if (size_in_sibling.count(p.name))
        notes.push_back("check: a size, as in a sibling launcher of this file, though it also stands in <<<...>>>");
      else if (!in_counts.count(p.name) && evidence.bounds_in_kernel.count(p.name))
        notes.push_back("check: a size: it bounds a loop or an index in " + evidence.bounds_in_kernel.at(p.name));
    } else if (t.kind == ParamKind::scalar && !dtype_is_float(*t.dtype)) {
      auto literal = cuda_source::integer_value(p.default_value);
      out += "  role = \"scalar\"\n  dtype = \"" + dtype +
             "\"\n  value = " + (literal ? std::to_string(*literal) : "3") + "\n";
      notes.push_back(literal ? "an integer that sizes nothing: its default argument"
                              : "check: an integer that sizes no buffer; a realistic value");
    } else if (t.kind == ParamKind::scalar) {
      bool numeric_default = !p.default_value.empty() &&
                             std::regex_match(p.default_value, std::regex(R"(-?[0-9.]+(e-?[0-9]+)?[fF]?)"));
      std::string value = numeric_default ? p.default_value : "1.5";
      if (value.ends_with('f') || value.ends_with('F')) value.pop_back();
      if (value.find_first_of(".eE") == std::string::npos) value += ".0";
      out += "  role = \"scalar\"\n  dtype = \"" + dtype + "\"\n  value = " + value + "\n";
      notes.push_back(numeric_default ? "its default argument"
                                      : "check: a realistic value (omit `value` for a random one per trial)");
    } else {
      out += "  role = \"input\"   # cannot be driven: " + t.why_not_drivable + "\n";
    }
    for (const auto& n : notes) out += "  # " + n + "\n";
  }
  if (!count_todo.empty()) {
    std::string names;
    for (const auto& n : count_todo) names += (names.empty() ? "" : ", ") + n;
    out = "# TODO: the element count of " + names + " (the kernel's indexing did not tell)\n" + out;
  }
  out = "# " + l.file + ":" + std::to_string(l.line) + ": launches " + kernels + "\n" + out;
  return table;
}

std::string commented(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    out += (line.starts_with('#') ? line : "# " + line) + "\n";
    start = end + 1;
  }
  return out;
}

// The table of one kernel target (bot/onboarding/target_inventory.h), live or commented out.
void write_kernel_target(const FoundKernelTarget& target, const cuda_source::ScanResult& scan, SourceTexts& texts,
                         std::set<std::string>& used_names, StarterConfig& result) {
  const cuda_source::ScannedLauncher& launcher = *target.launcher;
  const cuda_source::ScannedKernel& kernel = *target.kernel;
  const std::string why = *undrivable_launcher(launcher, texts.aliases(launcher.file));
  std::string unique = cuda_source::unqualified_name(kernel.name);
  for (int n = 2; !used_names.insert(unique).second; ++n)
    unique = cuda_source::unqualified_name(kernel.name) + "_" + std::to_string(n);
  const auto text_of = [&](const std::string& file) -> const std::string& { return texts.text(file); };
  KernelTargetDraft draft = render_kernel_target(kernel, target.sites, text_of, unique, texts.aliases(kernel.file),
                                                 cuda_source::scanned_function_lookup(scan, text_of));
  // What the kernel's file needs besides itself: written, not left to a hint after a failed load.
  const SourceNeeds needs = source_needs(kernel.file, &kernel, texts.root(), scan.files, texts.include_dirs(), text_of);
  std::string lines;
  if (!needs.extra_sources.empty()) {
    std::string list, uses;
    for (const auto& f : needs.extra_sources) list += (list.empty() ? "" : ", ") + toml_string(f);
    for (const auto& d : needs.from_extra_sources)
      uses += (uses.empty() ? "" : ", ") + d.name + " (" + d.file + ":" + std::to_string(d.line) + ")";
    lines += "extra_sources = [" + list + "]   # check: " + kernel.file + " uses " + uses + ", defined there\n";
  }
  if (needs.needs_setup()) {
    const std::string stub = "kernelbot_setup_" + unique + ".cu";
    std::string what;
    for (const auto& g : needs.device_globals) what += (what.empty() ? "" : ", ") + g.name;
    for (const auto& g : needs.program_globals) what += (what.empty() ? "" : ", ") + g.name;
    lines += "setup_source = " + toml_string(stub) + "   # TODO: fill in kb_setup() there: it sets " + what +
             ", as main() does\n";
    result.files.emplace_back(stub, setup_stub(unique, kernel.file, &kernel, needs));
  }
  if (!lines.empty()) {
    const std::string global_line = "\nglobal = " + toml_string(kernel.name) + "\n";
    const size_t at = draft.text.find(global_line);
    if (at != std::string::npos) draft.text.insert(at + global_line.size(), lines);
  }
  ++result.tables;
  ++result.kernel_targets;
  std::string head = "# " + launcher.name + " is not a launcher target (" + why + ").\n";
  if (target.sites.size() > 1)
    head += "# check: " + kernel.name + " is launched at " + std::to_string(target.sites.size()) +
            " places; the first is described (the tuner's findings are advisory)\n";
  if (draft.not_drivable.empty()) {
    result.text += head + draft.text + "\n";
  } else {
    ++result.commented_out;
    used_names.erase(unique);
    result.text += head + "# Not written: " + draft.not_drivable + ".\n" + commented(draft.text) + "\n";
  }
}

}  // namespace

StarterConfig render_starter_config(const cuda_source::ScanResult& scan, const std::filesystem::path& root,
                                    const StarterOptions& options) {
  StarterConfig result;
  // The header's prose, then every global key at its default, from the config's key table.
  std::string& out = result.text;
  out = kb::embedded::starter_header + config::commented_defaults();
  // The include directories a build would pass, guessed from where the #included headers are:
  // the harness compiles with them, and the aliases in those headers resolve through them.
  const std::vector<std::string> include_dirs =
      cuda_source::guess_include_dirs(root, scan.files, config::ProjectConfig{}.discover_exclude);
  if (!include_dirs.empty()) {
    out += "[project]\ninclude_dirs = [";
    for (size_t i = 0; i < include_dirs.size(); ++i) out += (i ? ", \"" : "\"") + include_dirs[i] + "\"";
    out += "]   # check: guessed from where the sources' #include \"...\" headers are\n\n";
  }
  SourceTexts texts(root, include_dirs);
  // First the sizes each launcher would have on its own, so that a sibling in the same file can
  // tell an extent from a launch setting.
  std::map<std::string, std::map<std::string, Table>> file_tables;  // file -> launcher:line -> its own table
  for (const auto& launcher : scan.launchers)
    if (!launcher.is_kernel && !launcher.launches.empty() &&
        (launches_itself(launcher) || !options.kernel_patterns.empty()))
      file_tables[launcher.file][launcher.name + ":" + std::to_string(launcher.line)] = render_table(launcher,
                                                                                                     launcher.name,
                                                                                                     scan, texts);
  // What the siblings say, gathered once per file, not from every other launcher of the file for
  // each launcher (quadratic: 20,000 launchers in one file). Sizes: how many launchers take each
  // name as a size. Counts: per signature and buffer, the first two launchers (by name and line)
  // that give one, so a launcher that is itself the first still finds another's.
  using Provider = std::pair<std::string, std::string>;           // launcher:line, count
  std::map<std::string, std::map<std::string, int>> size_counts;  // file -> size -> launchers taking it
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<Provider>>>>
      count_providers;  // file -> signature -> buffer -> up to two providers
  for (const auto& [file, by_launcher] : file_tables)
    for (const auto& [key, own] : by_launcher) {
      for (const auto& size : own.sizes) ++size_counts[file][size];
      for (const auto& [buffer, count] : own.counts) {
        auto& providers = count_providers[file][own.signature][buffer];
        if (providers.size() < 2) providers.emplace_back(key, count);
      }
    }
  // What there is to write (counted as discover and config check count it), then what was chosen.
  const TargetInventory inventory = take_inventory(scan,
                                                   [&](const std::string& file) -> const cuda_source::TypeAliases& {
                                                     return texts.aliases(file);
                                                   });
  result.launchers = static_cast<int>(inventory.launchers.size());
  result.candidates = result.launchers + static_cast<int>(inventory.kernel_targets.size());
  std::map<const ScannedLauncher*, std::vector<const FoundKernelTarget*>> targets_of;
  for (const auto& t : inventory.kernel_targets) targets_of[t.launcher].push_back(&t);
  std::set<std::string> used_names;
  for (const auto& launcher : scan.launchers) {
    if (launcher.is_kernel || launcher.launches.empty()) continue;
    if (!launches_itself(launcher) && options.kernel_patterns.empty()) {
      spdlog::debug("init: {} launches only through the helpers it calls; not proposed unless asked for by name",
                    launcher.name);
      continue;
    }
    // A kernel target by its __global__'s name, or by the function that launches it (main, a
    // function taking a tensor): in the kernel's file or that function's.
    for (const FoundKernelTarget* t : targets_of[&launcher])
      if (chosen(t->kernel->name, t->kernel->file, options) || chosen(t->kernel->name, launcher.file, options) ||
          chosen(launcher.name, launcher.file, options) || chosen(launcher.name, t->kernel->file, options))
        write_kernel_target(*t, scan, texts, used_names, result);
    if (cuda_source::unqualified_name(launcher.name) == "main") continue;
    if (!chosen(launcher.name, launcher.file, options)) continue;
    std::string name = cuda_source::unqualified_name(launcher.name);
    if (name.starts_with("launch_")) name = name.substr(7);
    std::string unique = name;
    for (int k = 2; !used_names.insert(unique).second; ++k) unique = name + "_" + std::to_string(k);
    Siblings siblings;
    const std::string key = launcher.name + ":" + std::to_string(launcher.line);
    const auto own = file_tables[launcher.file].find(key);
    for (const auto& [size, launchers] : size_counts[launcher.file]) {
      const bool mine = own != file_tables[launcher.file].end() && own->second.sizes.contains(size);
      if (launchers > (mine ? 1 : 0)) siblings.sizes.insert(size);
    }
    const std::string sig = signature(launcher);  // a variant of the same operation lends its counts
    for (const auto& [buffer, providers] : count_providers[launcher.file][sig])
      for (const auto& [other, count] : providers)
        if (other != key) {
          siblings.counts.emplace(buffer, std::make_pair(count, other.substr(0, other.rfind(':'))));
          break;
        }
    Table table = render_table(launcher, unique, scan, texts, siblings);
    ++result.tables;
    if (table.not_drivable.empty()) {
      out += table.text + "\n";
    } else {
      ++result.commented_out;
      used_names.erase(unique);
      out += "# Not written: " + table.not_drivable + ".\n" + commented(table.text) + "\n";
    }
  }
  if (result.candidates == 0)
    out += "# No launcher (a host function with a <<<...>>> launch) was found; add [[kernel]] tables by hand.\n";
  else if (result.tables == 0) out += "# Nothing matched --kernel/--file; " + inventory.counts() + " were found.\n";
  result.found = inventory.counts();
  return result;
}

}  // namespace kb::bot
