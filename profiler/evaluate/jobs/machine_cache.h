// What kernelbot keeps per machine rather than per repository: a GPU's measured ceilings (copy
// bandwidth, FP32 rate) belong to the machine, so every run of every repository on it measures
// them once (harness_process.h's calibrated_device reads and writes them there).
#pragma once

#include <filesystem>
#include <optional>

namespace kb::profiler {

// The user's cache folder by the XDG Base Directory rule: $XDG_CACHE_HOME when it is an absolute
// path (the specification ignores a relative one), else $HOME/.cache when HOME is absolute;
// nullopt when neither (a service account without a home). Nothing is created.
std::optional<std::filesystem::path> user_cache_home();

// Where the device calibration is kept: $KERNELBOT_CACHE_DIR when set, else kernelbot/ in the
// user's cache folder; without one, `project_cache` (the repository's .kernelbot/).
std::filesystem::path device_cache_dir(const std::filesystem::path& project_cache);

}  // namespace kb::profiler
