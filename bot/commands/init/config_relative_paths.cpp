#include "bot/commands/init/config_relative_paths.h"

#include <regex>
#include <sstream>

namespace kb::bot {
namespace {

namespace fs = std::filesystem;

std::string rebased(const std::string& path, const fs::path& prefix) {
  if (path.empty() || path == "TODO" || fs::path(path).is_absolute()) return path;
  return (prefix / path).lexically_normal().generic_string();
}

// Every "..." of `values` rebased (the items of a one-line array, or one string).
std::string rebase_strings(const std::string& values, const fs::path& prefix) {
  static const std::regex quoted(R"re("([^"\\]*)")re");
  std::string out;
  auto last = values.cbegin();
  for (std::sregex_iterator it(values.begin(), values.end(), quoted), end; it != end; ++it) {
    out.append(last, values.cbegin() + it->position(0));
    out += "\"" + rebased((*it)[1].str(), prefix) + "\"";
    last = values.cbegin() + it->position(0) + it->length(0);
  }
  out.append(last, values.cend());
  return out;
}

}  // namespace

std::string rebase_config_paths(const std::string& text, const fs::path& prefix) {
  if (prefix.empty() || prefix == ".") return text;
  static const std::regex path_key(
      R"re(^(\s*(?:#\s*)?(?:source|setup_source|include_dirs|extra_sources|prelude)\s*=\s*)(.*)$)re");
  std::istringstream lines(text);
  std::string out, line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, path_key)) {
      // The value ends at a comment outside quotes; a note after it keeps its words.
      const std::string rest = m[2].str();
      size_t end = 0;
      for (bool quoted = false; end < rest.size() && (quoted || rest[end] != '#'); ++end)
        if (rest[end] == '"') quoted = !quoted;
      line = m[1].str() + rebase_strings(rest.substr(0, end), prefix) + rest.substr(end);
    }
    out += line + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

fs::path path_prefix(const fs::path& root, const fs::path& config_dir) {
  std::error_code ec;
  const fs::path from = fs::weakly_canonical(fs::absolute(config_dir), ec);
  const fs::path to = fs::weakly_canonical(fs::absolute(root), ec);
  return to.lexically_relative(from);
}

}  // namespace kb::bot
