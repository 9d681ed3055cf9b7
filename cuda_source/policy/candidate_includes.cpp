#include "cuda_source/policy/candidate_includes.h"

#include <algorithm>
#include <set>
#include <system_error>

namespace kb::cuda_source {
namespace fs = std::filesystem;
namespace {

// Whether `p` (lexically normal) lies inside `dir` (lexically normal, absolute).
bool inside(const fs::path& p, fs::path dir) {
  if (!dir.has_filename()) dir = dir.parent_path();  // "/repo/" -> "/repo"
  return std::mismatch(dir.begin(), dir.end(), p.begin(), p.end()).first == dir.end();
}

// A relative name that cannot leave the directory it is looked up in.
bool plain_relative(const std::string& name) {
  if (name.empty() || name[0] == '/' || name.find('\\') != std::string::npos) return false;
  for (const auto& part : fs::path(name))
    if (part == "..") return false;
  return true;
}

// The repository's own private parts, which no header is: .git and kernelbot's state.
bool private_part(const fs::path& p) {
  for (const auto& part : p)
    if (part == ".git" || part == ".kernelbot") return true;
  return false;
}

bool regular_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// `name` looked up under `dir`, kept only when the result stays inside the repository (a symlink
// out of it does not count) and is a regular file there.
bool repository_header(const fs::path& dir, const std::string& name, const fs::path& repository) {
  if (dir.empty() || repository.empty()) return false;
  const fs::path candidate = (dir / name).lexically_normal();
  const fs::path root = repository.lexically_normal();
  if (!inside(candidate, root) || private_part(candidate.lexically_relative(root))) return false;
  if (!regular_file(candidate)) return false;
  std::error_code ec;
  const fs::path real = fs::canonical(candidate, ec);
  const fs::path real_root = fs::canonical(root, ec);
  return !ec && inside(real, real_root);
}

}  // namespace

bool standard_library_header(const std::string& name) {
  static const std::set<std::string> kHeaders = {
      // C++ (C++23, less <fstream> and <filesystem>)
      "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "cassert", "cctype", "cerrno", "cfenv",
      "cfloat", "charconv", "chrono", "cinttypes", "climits", "clocale", "cmath", "codecvt", "compare", "complex",
      "concepts", "condition_variable", "coroutine", "csetjmp", "csignal", "cstdarg", "cstddef", "cstdint", "cstdio",
      "cstdlib", "cstring", "ctime", "cuchar", "cwchar", "cwctype", "deque", "exception", "execution", "expected",
      "flat_map", "flat_set", "format", "forward_list", "functional", "future", "initializer_list", "iomanip", "ios",
      "iosfwd", "iostream", "istream", "iterator", "latch", "limits", "list", "locale", "map", "mdspan", "memory",
      "memory_resource", "mutex", "new", "numbers", "numeric", "optional", "ostream", "print", "queue", "random",
      "ranges", "ratio", "regex", "scoped_allocator", "semaphore", "set", "shared_mutex", "source_location", "span",
      "sstream", "stack", "stacktrace", "stdexcept", "stdfloat", "stop_token", "streambuf", "string", "string_view",
      "syncstream", "system_error", "thread", "tuple", "type_traits", "typeindex", "typeinfo", "unordered_map",
      "unordered_set", "utility", "valarray", "variant", "vector", "version", "cstdbool", "ciso646", "cstdalign",
      "ctgmath", "ccomplex",
      // C
      "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h", "limits.h",
      "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdbool.h", "stddef.h", "stdint.h",
      "stdio.h", "stdlib.h", "string.h", "tgmath.h", "time.h", "uchar.h", "wchar.h", "wctype.h", "stdatomic.h",
      "stdnoreturn.h"};
  return kHeaders.count(name) > 0;
}

bool known_toolkit_header(const std::string& name) {
  if (!plain_relative(name)) return false;
  static const char* const kDirectories[] = {"cub/",  "thrust/", "cuda/", "cooperative_groups/", "nv/", "crt/",
                                             "cute/", "nvtx3/",  "cccl/"};
  for (const char* d : kDirectories)
    if (name.starts_with(d)) return true;
  if (name.find('/') != std::string::npos) return false;
  // cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, cuda_pipeline.h, cuda.h, cudaTypedefs.h...
  if (name.starts_with("cuda") || name.starts_with("cublas") || name.starts_with("curand") ||
      name.starts_with("cufft") || name.starts_with("cusparse") || name.starts_with("cusolver") ||
      name.starts_with("nvrtc") || name.starts_with("nvToolsExt") || name.starts_with("sm_"))
    return name.ends_with(".h") || name.ends_with(".hpp") || name.ends_with(".cuh");
  static const std::set<std::string> kHeaders = {"cooperative_groups.h",
                                                 "mma.h",
                                                 "vector_types.h",
                                                 "vector_functions.h",
                                                 "vector_functions.hpp",
                                                 "device_functions.h",
                                                 "device_launch_parameters.h",
                                                 "device_types.h",
                                                 "driver_types.h",
                                                 "builtin_types.h",
                                                 "host_defines.h",
                                                 "library_types.h",
                                                 "math_constants.h",
                                                 "math_functions.h",
                                                 "surface_types.h",
                                                 "texture_types.h",
                                                 "texture_fetch_functions.h",
                                                 "surface_functions.h",
                                                 "channel_descriptor.h",
                                                 "driver_functions.h",
                                                 "host_config.h",
                                                 "common_functions.h",
                                                 "device_atomic_functions.h",
                                                 "device_double_functions.h",
                                                 "cuComplex.h",
                                                 "fatbinary_section.h",
                                                 "nvfunctional"};
  return kHeaders.count(name) > 0;
}

std::string include_refusal(const std::string& name, bool angle, const IncludeScope& scope) {
  static const std::string kWhy = "is not a header of the repository, the CUDA toolkit or the standard library";
  if (name.empty()) return "names no header";
  if (name[0] == '/') return "names an absolute path";
  if (standard_library_header(name) || known_toolkit_header(name)) return {};
  if (!plain_relative(name)) {
    // Only a quoted include may climb, and only to a header of the repository ("../include/x.h").
    if (angle || name.find('\\') != std::string::npos) return kWhy;
  } else {
    for (const auto& dir : scope.toolkit_include_dirs)
      if (!dir.empty() && regular_file(dir / name)) return {};
  }
  // A quoted include looks beside the including file first (the original's directory, as the
  // variant compiles), then where an angle one does: the -I directories.
  if (!angle && repository_header(scope.source_dir, name, scope.repository)) return {};
  for (const auto& dir : scope.include_dirs)
    if (repository_header(dir, name, scope.repository)) return {};
  return kWhy;
}

}  // namespace kb::cuda_source
