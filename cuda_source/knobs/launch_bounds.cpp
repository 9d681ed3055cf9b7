#include "cuda_source/knobs/launch_bounds.h"

#include <regex>
#include <set>

#include <spdlog/spdlog.h>

#include "common/bracket_split.h"
#include "common/text.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {
namespace {

bool is_identifier(const std::string& s) { return std::regex_match(s, std::regex("[A-Za-z_][A-Za-z0-9_]*")); }
bool is_integer(const std::string& s) { return std::regex_match(s, std::regex("[0-9]+[uU]?")); }

// A #define of the name wherever it stands (a function body too); one in a comment is not.
bool is_defined_macro(const std::string& source, const std::string& name) {
  for (const auto& d : read_directives(source))
    if (d.keyword == "define" && d.name == name) return true;
  return false;
}

std::optional<std::string> constant_factor(const std::string& source, const std::string& text) {
  std::string t = trim(text);
  if (is_integer(t)) return t;
  if (is_identifier(t) && is_defined_macro(source, t)) return t;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts = split_outside_brackets(text, ',');
  if (parts.back().empty()) parts.pop_back();  // nothing after the last comma (or no text at all)
  return parts;
}

std::optional<std::string> constant_block_expression(const std::string& source, const std::string& block_arg) {
  std::string arg = trim(block_arg);
  if (auto f = constant_factor(source, arg)) return f;
  std::vector<std::string> dims;
  std::smatch m;
  if (std::regex_match(arg, m, std::regex(R"(dim3\s*\((.*)\))"))) {
    dims = split_top_level(m[1]);
  } else if (is_identifier(arg)) {
    std::regex decl("dim3\\s+" + arg + "\\s*(?:\\(|=\\s*dim3\\s*\\(|\\{|=\\s*\\{)([^;]*)[)}]\\s*;");
    if (!std::regex_search(source, m, decl)) return std::nullopt;
    dims = split_top_level(m[1]);
  }
  if (dims.empty() || dims.size() > 3) return std::nullopt;
  std::string expr;
  for (const auto& d : dims) {
    auto f = constant_factor(source, d);
    if (!f) return std::nullopt;
    expr += (expr.empty() ? "(" : " * (") + *f + ")";
  }
  return dims.size() == 1 ? trim(dims[0]) : expr;
}

std::optional<std::string> add_launch_bounds(const std::string& source, const std::string& launcher) {
  cuda_source::ScanResult scan;
  cuda_source::scan_source(source, "candidate.cu", scan);
  std::string out = source;
  std::set<std::string> done;
  bool changed = false;
  for (const auto& l : scan.launchers) {
    if (unqualified_name(l.name) != unqualified_name(launcher)) continue;
    for (const auto& launch : l.launches) {
      if (done.count(launch.kernel)) continue;
      if (!launch.edits_in_place()) {
        // The block is not this launcher's `kernel<<<grid, block>>>`: a helper's, a pointer's
        // that may hold other kernels, or an API call's.
        spdlog::debug("launch bounds: {}'s launch of {} at {}:{} is not read ({}); no __launch_bounds__ added for it",
                      l.name, launch.kernel, launch.file, launch.line,
                      !launch.via.empty()   ? "it is in " + launch.via
                      : !launch.api.empty() ? "through " + launch.api + "()"
                                            : "through the function pointer `" + launch.variable + "`");
        continue;
      }
      auto parts = split_top_level(launch.launch_config);
      if (parts.size() < 2) continue;
      auto block = constant_block_expression(source, parts[1]);
      if (!block) continue;
      // The kernel's definition: `__global__` followed, within one declaration, by its name and '('.
      std::regex def("__global__([^;{}]*?)\\b" + unqualified_name(launch.kernel) + "\\s*(<[^;{}]*>)?\\s*\\(");
      std::smatch m;
      if (!std::regex_search(out, m, def)) continue;
      if (std::string(m[1]).find("__launch_bounds__") != std::string::npos) continue;
      size_t at = static_cast<size_t>(m.position(0)) + std::string("__global__").size();
      out.insert(at, " __launch_bounds__(" + *block + ")");
      done.insert(launch.kernel);
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace kb::cuda_source
