#include "common/path_containment.h"

namespace kb {

bool resolves_inside(const std::filesystem::path& root, const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(fs::absolute(root, ec), ec);
  if (ec) return false;
  const fs::path real = fs::weakly_canonical(path.is_absolute() ? path : real_root / path, ec);
  if (ec) return false;
  // By components, so /repo-other is not taken for a child of /repo.
  const fs::path inside = real.lexically_relative(real_root);
  return !inside.empty() && *inside.begin() != "..";
}

std::filesystem::path repository_root_of(const std::filesystem::path& config_dir, const std::filesystem::path& cwd) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(config_dir, ec), ec);
  if (ec) return config_dir;
  for (fs::path at = dir;; at = at.parent_path()) {
    if (fs::exists(at / ".git", ec)) return at;
    if (at == at.parent_path()) break;
  }
  fs::path work = fs::weakly_canonical(cwd, ec);
  if (!ec && resolves_inside(work, dir)) return work;
  return dir;
}

}  // namespace kb
