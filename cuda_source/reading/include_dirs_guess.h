// Where a repository keeps the headers its CUDA sources #include. A build system passes
// `-Iinclude` (or several); `init` has no build system to ask, so it finds each quoted #include
// that does not resolve next to the including file or at the root, looks for a header in the
// tree whose path ends with the included path, and takes the directory that prefix leaves.
// Without these, type aliases in those headers (`floatX`) stay unresolved and the harness
// would not compile.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

// Where `#include "included"` in the file `including` (a path the caller can open: absolute, or
// under the working directory) resolves as a build with -I root/<dir> for each of
// `include_dirs` would: beside the including file, at `root`, then under each directory in
// order. Nothing when no such file exists.
std::optional<std::filesystem::path> resolve_quoted_include(const std::filesystem::path& root,
                                                            const std::filesystem::path& including,
                                                            const std::string& included,
                                                            const std::vector<std::string>& include_dirs);

// Include directories (relative to `root`, sorted, "" never) under which the quoted #includes
// of `files` (relative to `root`) resolve. Directories named in `exclude` are not searched.
std::vector<std::string> guess_include_dirs(const std::filesystem::path& root, const std::vector<std::string>& files,
                                            const std::vector<std::string>& exclude);

}  // namespace kb::cuda_source
