#include "bot/checks/compile_hints.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>

#include "bot/onboarding/symbol_origin.h"
#include "common/file_io.h"
#include "core/setup_contract.h"
#include "profiler/evaluate/compile/setup_source.h"

namespace kb::bot {
namespace fs = std::filesystem;
namespace {

bool is_header(const std::string& file) {
  const std::string ext = fs::path(file).extension().string();
  return ext == ".h" || ext == ".hh" || ext == ".hpp" || ext == ".hxx" || ext == ".cuh" || ext == ".inl";
}

// A file of the repository (not the toolkit's, not the system's): under the root, outside the
// compile cache.
bool in_repository(const std::string& file, const config::Config& config) {
  if (config.root.empty()) return false;
  const std::string root = fs::absolute(config.root).lexically_normal().string() + "/";
  const std::string path = fs::path(file).is_absolute() ? fs::path(file).lexically_normal().string()
                                                        : (config.root / file).lexically_normal().string();
  return path.starts_with(root) && path.find("/.kernelbot/") == std::string::npos && fs::exists(path);
}

std::string relative(const std::string& file, const config::Config& config) {
  const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : config.root / file;
  return p.lexically_normal().lexically_relative(fs::absolute(config.root).lexically_normal()).string();
}

// An error about a name the compiler does not know, in nvcc's (cudafe) and the host compilers' words.
struct UnknownName {
  std::string file;
  std::string line;
  std::string name;
};

std::vector<UnknownName> unknown_names(const std::string& log) {
  // "file(12): error: ..." (cudafe), "file:12:5: error: ..." (host compilers), "file:12: error:"
  // (cudafe's, renamed to the repository's file by check --compile).
  static const std::regex kUnknown(
      R"re(([^\s:"()]+)(?:\((\d+)\)|:(\d+)(?::\d+)?): error: (?:identifier "(\w+)" is undefined|"?(\w+)"? is not a type name|namespace "\w+" has no member "(\w+)"|'(\w+)' does not name a type|unknown type name '(\w+)'|'(\w+)' was not declared in this scope|use of undeclared identifier '(\w+)'|'(\w+)' has not been declared))re");
  std::vector<UnknownName> out;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), kUnknown); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    std::string name;
    for (size_t g = 4; g < m.size() && name.empty(); ++g)
      if (m[g].matched) name = m[g].str();
    out.push_back({m[1].str(), m[2].matched ? m[2].str() : m[3].str(), name});
  }
  return out;
}

std::optional<std::string> missing_file(const std::string& log) {
  static const std::regex kMissing(
      R"re((?:fatal error: ([^\s:]+): No such file or directory|cannot open source file "([^"]+)"))re");
  std::smatch m;
  if (!std::regex_search(log, m, kMissing)) return std::nullopt;
  return m[1].matched ? m[1].str() : m[2].str();
}

}  // namespace

std::string header_declaring(const std::string& name, const fs::path& root, const std::vector<std::string>& exclude) {
  if (name.empty() || root.empty()) return "";
  const std::regex declares("(typedef[^;]*\\b" + name + "\\s*;|using\\s+" + name +
                            "\\s*=|(struct|class|enum|union)\\s+" + name + "\\b[^;]*\\{|#\\s*define\\s+" + name +
                            "\\b)");
  std::vector<fs::path> headers;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) &&
        std::find(exclude.begin(), exclude.end(), it->path().filename().string()) != exclude.end()) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && is_header(it->path().string())) headers.push_back(it->path());
  }
  std::sort(headers.begin(), headers.end());
  for (const auto& h : headers) {
    const auto text = read_text_file_if_readable(h);
    if (text && text->find(name) != std::string::npos && std::regex_search(*text, declares))
      return h.lexically_relative(root).string();
  }
  return "";
}

std::vector<std::string> compile_error_hints(const std::string& log, const config::Config& config) {
  std::vector<std::string> hints;
  std::set<std::string> headers_seen;  // one hint per file
  for (const auto& u : unknown_names(log)) {
    if (!in_repository(u.file, config) || !headers_seen.insert(u.file).second) continue;
    const std::string file = relative(u.file, config);
    std::string declaring = header_declaring(u.name, config.root, config.project.discover_exclude);
    if (declaring == file) declaring.clear();
    const std::string what = u.name.empty() ? "a name" : "'" + u.name + "'";
    if (is_header(u.file))
      hints.push_back(file + ":" + u.line + " uses " + what +
                      " that nothing it includes declares: the header is not self-contained (the program's other "
                      "sources declare it before including it). Force-include what it needs before every compile: "
                      "[project] prelude = [\"" +
                      (declaring.empty() ? "compat/prelude.h" : declaring) + "\"]" +
                      (declaring.empty() ? " (a header you write that declares it)" : " (which declares it)"));
    else if (!declaring.empty())
      hints.push_back(file + ":" + u.line + " uses " + what + ", which " + declaring +
                      " declares but the file does not #include (the project's build force-includes it?): "
                      "[project] prelude = [\"" +
                      declaring + "\"] includes it before every compile");
  }
  if (auto file = missing_file(log)) {
    std::string where;
    if (!config.root.empty() && fs::exists(config.root / *file)) where = " (the repository has " + *file + ")";
    hints.push_back("nvcc could not open " + *file + where +
                    ". nvcc runs in a build directory of kernelbot's compile cache ([search].work_dir/cache), not "
                    "in the repository: give header directories in include_dirs and forced includes in [project] "
                    "prelude (both relative to kernelbot.toml); relative paths in nvcc_flags are resolved against "
                    "kernelbot.toml's directory only where that file or directory exists there");
  }
  static const std::regex kMultiple(R"re(multiple definition of [`'"]([^'`"]+)['`"])re");
  std::smatch m;
  if (std::regex_search(log, m, kMultiple))
    hints.push_back(
        "'" + m[1].str() +
        "' is defined by two translation units of the library: a source in extra_sources that the kernel's file also "
        "#includes, or a header with non-inline definitions that both include. Keep such a header to the kernel's "
        "unit (a forced include in its nvcc_flags reaches only the kernel's file, never extra_sources), or make "
        "the definitions inline or static");
  return hints;
}

std::string undefined_symbol_hint(const std::string& symbol, const config::Config& config,
                                  const config::KernelSpec& spec) {
  if (name_in_code(symbol) == kSetupSymbol) {
    const std::string& setup = config.setup_source_for(spec);
    return setup.empty() ? "" : profiler::setup_symbol_missing_hint(setup);
  }
  if (auto d = find_repository_definition(symbol, config.root, config.project.discover_exclude))
    return definition_hint(symbol, *d);
  return "";
}

}  // namespace kb::bot
