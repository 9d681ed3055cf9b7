// The hand-written candidates of tests/profiler/candidates/ live in one folder per kernel they
// replace (saxpy/, saxpy_stream/, row_sum/, ...); a test names only the file, found here.
#pragma once

#include <filesystem>
#include <string>

namespace kb::testing {

// The candidate file `name` under `source_dir`/tests/profiler/candidates/, in whichever kernel's
// folder it is; a path that does not exist (so the test fails naming it) when none holds it.
inline std::filesystem::path hand_written_candidate(const std::filesystem::path& source_dir, const std::string& name) {
  const std::filesystem::path root = source_dir / "tests" / "profiler" / "candidates";
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().filename() == name) return it->path();
  return root / name;
}

}  // namespace kb::testing
