#include "profiler/evaluate/compile/compile_dependencies.h"

#include <algorithm>
#include <sstream>
#include <system_error>

#include "common/file_io.h"
#include "common/sha256.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

// Whether `p` (lexically normal) lies inside `dir`.
bool inside(const fs::path& p, fs::path dir) {
  if (!dir.has_filename()) dir = dir.parent_path();
  return !dir.empty() && std::mismatch(dir.begin(), dir.end(), p.begin(), p.end()).first == dir.end();
}

}  // namespace

std::vector<std::string> parse_make_deps(const std::string& text) {
  std::vector<std::string> deps;
  std::string joined;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      joined += ' ';
      ++i;
    } else {
      joined += text[i];
    }
  }
  size_t colon = joined.find(": ");
  if (colon == std::string::npos) return deps;
  std::istringstream words(joined.substr(colon + 2));
  std::string w;
  while (words >> w) deps.push_back(w);
  return deps;
}

bool dependency_tracked(const std::string& path, const fs::path& build_dir, const std::vector<fs::path>& roots) {
  const fs::path p = fs::path(path).lexically_normal();
  if (!p.is_absolute() || inside(p, build_dir)) return false;
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (ec || !fs::is_regular_file(real, ec) || inside(real, build_dir)) return false;
  for (const auto& root : roots) {
    const fs::path real_root = fs::canonical(root, ec);
    if (!ec && inside(p, root.lexically_normal()) && inside(real, real_root)) return true;
  }
  return false;
}

std::string dependency_key(const std::string& key1, const std::vector<std::string>& deps) {
  Sha256 h;
  h.field(key1);
  for (const auto& d : deps) {
    h.field(d);
    std::error_code ec;
    h.field(fs::is_regular_file(d, ec) ? sha256_hex(try_read_text_file(d, kDataFileLimitBytes).value_or(""))
                                       : "missing");
  }
  return h.hex();
}

}  // namespace kb::profiler
