// Which headers a candidate may #include: the repository's, the CUDA toolkit's and the C and
// C++ standard library's. Anything else (POSIX's <unistd.h>, <dlfcn.h>, <sys/socket.h>, a file
// named by an absolute path, "/proc/self/environ") is how host code reaches the system, which a
// kernel replacement does not need. Part of the candidate source policy (candidate_policy.h).
//
// Deciding touches the file system only inside the repository and the toolkit's include
// directories, and only with a status query (never an open) of a relative name without `..`
// (inside the toolkit) or of a path that lies lexically inside the repository.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kb::cuda_source {

// Where a candidate's #includes may resolve.
struct IncludeScope {
  std::filesystem::path repository;                         // absolute; headers under it are the repository's
  std::filesystem::path source_dir;                         // the original's directory: quoted includes start there
  std::vector<std::filesystem::path> include_dirs;          // the kernel's -I directories
  std::vector<std::filesystem::path> toolkit_include_dirs;  // the CUDA toolkit's include directories
};

// Empty when `#include <name>` (angle) or `#include "name"` (quoted) names a header the policy
// allows; otherwise why not ("not a header of the repository, the CUDA toolkit or the standard
// library").
std::string include_refusal(const std::string& name, bool angle, const IncludeScope& scope);

// Whether `name` is a header of the C or C++ standard library (<vector>, <cstdint>, <math.h>).
// <fstream> and <filesystem> are not in the list: they exist for file access.
bool standard_library_header(const std::string& name);

// Whether `name` is a header of the CUDA toolkit by its name alone (<cuda_runtime.h>,
// <cooperative_groups.h>, <cub/...>, <thrust/...>, <cuda/...>, <mma.h>...), so the check does not
// depend on where the toolkit is installed.
bool known_toolkit_header(const std::string& name);

}  // namespace kb::cuda_source
