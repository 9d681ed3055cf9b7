// The headers a compiled variant depends on, for the compile cache's key: nvcc -MD lists what the
// translation unit's #includes reached, and the contents of the repository's headers among them
// are hashed into the key, so a header changed between runs (the variant's text unchanged) is a
// miss. The list comes from a compile of a candidate's source, which may name any path the
// sandbox shows (/proc/self/environ, /dev/stdin, a FIFO, a symlink out of the repository):
// kernelbot opens only regular files that are, symlinks resolved, inside the given roots.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kb::profiler {

// The files a make-style dependency list (nvcc -MD) names, except the target itself.
std::vector<std::string> parse_make_deps(const std::string& text);

// Whether `path` from such a list is one whose contents key the cache: an absolute path outside
// `build_dir` that lies, both as written and with symlinks resolved, inside one of `roots` (the
// repository and the kernel's configured include directories) and is a regular file there. The
// toolkit's and the system's headers are not: the nvcc version in the key covers them. Only
// status queries; nothing is opened.
bool dependency_tracked(const std::string& path, const std::filesystem::path& build_dir,
                        const std::vector<std::filesystem::path>& roots);

// `key1` (the variant's text and flags) with the path and contents of each tracked dependency.
std::string dependency_key(const std::string& key1, const std::vector<std::string>& deps);

}  // namespace kb::profiler
