#include "profiler/evaluate/jobs/machine_cache.h"

#include <cstdlib>

namespace kb::profiler {
namespace fs = std::filesystem;

std::optional<fs::path> user_cache_home() {
  const auto absolute_env = [](const char* name) -> std::optional<fs::path> {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    fs::path p(value);
    if (!p.is_absolute()) return std::nullopt;
    return p;
  };
  if (auto xdg = absolute_env("XDG_CACHE_HOME")) return xdg;
  if (auto home = absolute_env("HOME")) return *home / ".cache";
  return std::nullopt;
}

fs::path device_cache_dir(const fs::path& project_cache) {
  if (const char* dir = std::getenv("KERNELBOT_CACHE_DIR"); dir && *dir) return fs::absolute(dir);
  if (auto home = user_cache_home()) return *home / "kernelbot";
  return project_cache;
}

}  // namespace kb::profiler
