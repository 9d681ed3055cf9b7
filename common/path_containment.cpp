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

}  // namespace kb
