#include "cuda_source/knobs/tunable_macros.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cuda_source/knobs/launch_bounds.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

MacroRole role_from_name(const std::string& name) {
  std::string n = upper(name);
  for (const char* w : {"PER_THREAD", "ITEMS", "ELEMS", "ELEMENTS", "VEC", "UNROLL", "ILP", "WORK"})
    if (n.find(w) != std::string::npos) return MacroRole::work_per_thread;
  for (const char* w : {"BLOCK", "THREADS", "TPB", "NTHREADS"})
    if (n.find(w) != std::string::npos) return MacroRole::block_size;
  return MacroRole::other;
}

const char* to_string(MacroRole role) {
  switch (role) {
    case MacroRole::block_size: return "block size";
    case MacroRole::block_dimension: return "block dimension";
    case MacroRole::work_per_thread: return "work per thread";
    case MacroRole::other: return "other";
  }
  return "other";
}

std::vector<TunableMacro> detect_tunable_macros(const std::string& source) {
  std::vector<TunableMacro> found;
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  static const std::regex tune_re(R"(//\s*kernelbot\s*:\s*tune\s+([A-Za-z_][A-Za-z0-9_]*)\s*=?\s*(.*)$)");
  auto find = [&](const std::string& name) -> TunableMacro* {
    for (auto& m : found)
      if (m.name == name) return &m;
    return nullptr;
  };
  // Knobs by the 0-based index of their #ifndef line: a guard with nothing after the name, and
  // on the very next line the #define of that name with an integer.
  std::map<size_t, std::pair<std::string, int64_t>> guarded;
  const auto directives = read_directives(source);
  for (size_t k = 0; k + 1 < directives.size(); ++k) {
    const Directive& guard = directives[k];
    const Directive& define = directives[k + 1];
    if (guard.keyword != "ifndef" || guard.name.empty() || guard.value_begin != guard.value_end) continue;
    if (!define.is_object_like_define() || define.name != guard.name || define.line != guard.line + 1) continue;
    if (auto value = integer_value(define.value(source)))
      guarded.emplace(static_cast<size_t>(guard.line - 1), std::make_pair(guard.name, *value));
  }
  // One pass over the lines, so knobs keep the order in which the file mentions them.
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (auto g = guarded.find(i); g != guarded.end() && !find(g->second.first)) {
      const std::string& name = g->second.first;
      found.push_back(TunableMacro{name, g->second.second, static_cast<int>(i + 1), role_from_name(name), {}});
    }
    if (std::regex_search(lines[i], m, tune_re)) {
      std::vector<std::string> values;
      std::string rest = m[2];
      std::replace(rest.begin(), rest.end(), ',', ' ');
      std::istringstream in(rest);
      for (std::string v; in >> v;) values.push_back(v);
      TunableMacro* macro = find(m[1]);
      if (!macro) {
        found.push_back(TunableMacro{m[1], std::nullopt, static_cast<int>(i + 1), role_from_name(m[1]), {}});
        macro = &found.back();
      }
      macro->declared_values = values;
    }
  }
  // A knob passed as the block argument of a launch is a block size whatever its name; one
  // inside a dim3 block shape is one dimension of it.
  cuda_source::ScanResult scan;
  cuda_source::scan_source(source, "candidate.cu", scan);
  for (const auto& launcher : scan.launchers)
    for (const auto& launch : launcher.launches) {
      // A helper's site is read where it is written, with the helper; an API launch has no <<<>>>.
      if (!launch.in_launcher_scope() || !launch.api.empty()) continue;
      auto parts = split_top_level(launch.launch_config);
      if (parts.size() < 2) continue;
      if (TunableMacro* macro = find(parts[1])) {
        macro->role = MacroRole::block_size;
        continue;
      }
      // dim3 shapes: each named factor is one dimension of the block.
      if (auto expr = constant_block_expression(source, parts[1])) {
        const std::string rest = *expr;
        const auto factors = std::count(rest.begin(), rest.end(), '(');
        static const std::regex name_re("[A-Za-z_][A-Za-z0-9_]*");
        for (auto it = std::sregex_iterator(rest.begin(), rest.end(), name_re); it != std::sregex_iterator(); ++it)
          if (TunableMacro* macro = find(it->str()))
            macro->role = factors > 1 ? MacroRole::block_dimension : MacroRole::block_size;
      }
    }
  return found;
}

std::vector<std::string> sweep_values(const TunableMacro& macro) {
  if (!macro.declared_values.empty()) return macro.declared_values;
  int64_t def = macro.default_value.value_or(1);
  // A 0 default is usually a switch; a negative one is not a size: nothing to sweep around it.
  if (def == 0) return {"0", "1"};
  if (def < 0) return {std::to_string(def)};
  int64_t lo = 1, hi = 1;
  switch (macro.role) {
    case MacroRole::block_size: lo = 32, hi = 1024; break;
    case MacroRole::block_dimension: lo = 1, hi = 1024; break;
    case MacroRole::work_per_thread: lo = 1, hi = 16; break;
    case MacroRole::other:
      lo = std::max<int64_t>(1, def / 4);
      hi = std::max<int64_t>(1, def * 4);
      break;
  }
  std::set<int64_t> values;
  for (int64_t v = 1; v <= hi; v *= 2)
    if (v >= lo) values.insert(v);
  if (def >= 1) values.insert(def);
  std::vector<std::string> out;
  for (int64_t v : values) out.push_back(std::to_string(v));
  return out;
}

}  // namespace kb::cuda_source
