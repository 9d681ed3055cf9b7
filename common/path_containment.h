// Whether a path a config names stays inside the repository: after `..` and every symlink are
// resolved, as the file that would really be read. A source that leads outside (`../x.cu`, or a
// link to /etc/...) would be read, hashed, compiled and spliced into a PR as if it were the
// repository's own, so the config has to say so explicitly.
#pragma once

#include <filesystem>

namespace kb {

// True when `path` (relative to `root`, or absolute) resolves to `root` or below it. Parts that do
// not exist yet are taken as written, so a missing file is judged by its name.
bool resolves_inside(const std::filesystem::path& root, const std::filesystem::path& path);

// The repository a config in `config_dir` belongs to: the nearest directory at or above it that
// holds `.git`; else the working directory `cwd` when it is at or above `config_dir` (a config
// kept in ci/ of a checkout without git data); else `config_dir` itself.
std::filesystem::path repository_root_of(const std::filesystem::path& config_dir, const std::filesystem::path& cwd);

}  // namespace kb
