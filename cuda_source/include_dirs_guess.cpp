#include "cuda_source/include_dirs_guess.h"

#include <algorithm>
#include <regex>
#include <set>

#include "common/file_io.h"

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

std::vector<std::string> guess_include_dirs(const fs::path& root, const std::vector<std::string>& files,
                                            const std::vector<std::string>& exclude) {
  static const std::regex include_line(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re");
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
    auto text = try_read_text_file(root / file);
    if (!text) continue;
    std::vector<std::string> includes;
    size_t start = 0;
    while (start < text->size()) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      std::smatch m;
      const std::string line = text->substr(start, end - start);
      if (std::regex_search(line, m, include_line)) includes.push_back(m[1].str());
      start = end + 1;
    }
    for (const auto& included : includes) {
      const fs::path beside = fs::path(file).parent_path() / included;
      if (fs::is_regular_file(root / beside)) {
        queue.push_back(beside.lexically_normal().generic_string());
        continue;
      }
      if (fs::is_regular_file(root / included)) {
        queue.push_back(included);
        continue;
      }
      bool resolved = false;
      for (const auto& dir : dirs)
        if (fs::is_regular_file(root / dir / included)) {
          queue.push_back((fs::path(dir) / included).generic_string());
          resolved = true;
          break;
        }
      if (resolved) continue;
      if (!listed) {
        headers = tree_headers(root, exclude);
        listed = true;
      }
      const std::string suffix = "/" + fs::path(included).lexically_normal().generic_string();
      for (const auto& h : headers)
        if (h.size() > suffix.size() && h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0) {
          dirs.insert(h.substr(0, h.size() - suffix.size()));
          queue.push_back(h);
          break;
        }
    }
  }
  return {dirs.begin(), dirs.end()};
}

}  // namespace kb::cuda_source
