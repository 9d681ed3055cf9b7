#include "cuda_source/reading/include_dirs_guess.h"

#include <algorithm>
#include <set>

#include "common/file_io.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::cuda_source {
namespace {

namespace fs = std::filesystem;

bool is_header_like(const fs::path& p) {
  static const std::set<std::string> exts = {".h", ".hpp", ".hh", ".cuh", ".inl", ".cu", ".cpp"};
  return exts.count(p.extension().string()) > 0;
}

// Every header-like file under root (relative, generic form), excluded directories skipped.
std::vector<std::string> tree_headers(const fs::path& root, const std::vector<std::string>& exclude) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (!name.empty() && (name[0] == '.' || std::find(exclude.begin(), exclude.end(), name) != exclude.end()))
        it.disable_recursion_pending();
      continue;
    }
    if (is_header_like(it->path())) out.push_back(fs::relative(it->path(), root, ec).generic_string());
  }
  return out;
}

}  // namespace

std::optional<fs::path> resolve_quoted_include(const fs::path& root, const fs::path& including,
                                               const std::string& included,
                                               const std::vector<std::string>& include_dirs) {
  std::vector<fs::path> candidates = {including.parent_path() / included, root / included};
  for (const auto& dir : include_dirs) candidates.push_back(root / dir / included);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c)) return c;
  return std::nullopt;
}

std::vector<std::string> guess_include_dirs(const fs::path& root, const std::vector<std::string>& files,
                                            const std::vector<std::string>& exclude) {
  std::set<std::string> dirs;
  std::vector<std::string> headers;
  bool listed = false;
  std::set<std::string> seen;
  std::vector<std::string> queue(files.begin(), files.end());
  // Follows includes into the headers found, so an include inside a header is resolved too.
  while (!queue.empty()) {
    std::string file = queue.back();
    queue.pop_back();
    if (!seen.insert(file).second) continue;
    auto text = read_text_file_if_readable(root / file);
    if (!text) continue;
    for (const auto& directive : read_directives(*text)) {
      const std::string included = quoted_include(*text, directive);
      if (included.empty()) continue;
      const std::vector<std::string> known(dirs.begin(), dirs.end());
      if (auto found = resolve_quoted_include(root, root / file, included, known)) {
        queue.push_back(found->lexically_normal().lexically_relative(root).generic_string());
        continue;
      }
      if (!listed) {
        headers = tree_headers(root, exclude);
        listed = true;
      }
      const std::string suffix = "/" + fs::path(included).lexically_normal().generic_string();
      for (const auto& h : headers)
        if (h.size() > suffix.size() && h.ends_with(suffix)) {
          dirs.insert(h.substr(0, h.size() - suffix.size()));
          queue.push_back(h);
          break;
        }
    }
  }
  return {dirs.begin(), dirs.end()};
}

}  // namespace kb::cuda_source
