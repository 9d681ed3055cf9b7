// The paths inside [project]/[[kernel]] nvcc_flags. nvcc runs in a build directory of the
// compile cache, not in the repository: a relative `-Iinclude` or `-include compat.h` written as
// the repository's Makefile has it would name nothing there. These helpers resolve such paths
// against the repository root, and tell forced includes (which belong to the kernel's own
// translation unit) from the flags every translation unit of the library shares.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kb::profiler {

// `flags` with the directory of every -I/-isystem/-iquote/-idirafter/-L/--include-path/
// --library-path made absolute against `root`, and the file of every -include/--pre-include made
// absolute when `root` holds it (else it is left to nvcc's include search: `-include cuda_fp16.h`).
// Both spellings: "-Idir" and "-I dir", "--pre-include=f" and "--pre-include f".
std::vector<std::string> resolve_flag_paths(const std::vector<std::string>& flags, const std::filesystem::path& root);

// The flags split in two: forced includes (-include F, --pre-include F and their joined forms),
// each with its argument, and everything else, in order.
struct SplitFlags {
  std::vector<std::string> forced_includes;
  std::vector<std::string> rest;
};
SplitFlags split_forced_includes(const std::vector<std::string>& flags);

}  // namespace kb::profiler
