// Where a repository keeps the headers its CUDA sources #include. A build system passes
// `-Iinclude` (or several); `init` has no build system to ask, so it finds each quoted #include
// that does not resolve next to the including file or at the root, looks for a header in the
// tree whose path ends with the included path, and takes the directory that prefix leaves.
// Without these, type aliases in those headers (`floatX`) stay unresolved and the harness
// would not compile.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kb::cuda_source {

// Include directories (relative to `root`, sorted, "" never) under which the quoted #includes
// of `files` (relative to `root`) resolve. Directories named in `exclude` are not searched.
std::vector<std::string> guess_include_dirs(const std::filesystem::path& root, const std::vector<std::string>& files,
                                            const std::vector<std::string>& exclude);

}  // namespace kb::cuda_source
