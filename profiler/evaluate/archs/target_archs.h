// The GPU architectures a kernel's project builds for, and where that was read. A candidate is
// searched for the judge's GPU only, but the project ships it for each of these; a candidate whose
// `#if __CUDA_ARCH__ < 900` branch is wrong would ship that bug unseen, so the winner's PR text
// (and `kernelbot eval`) is verified for each (profiler/evaluate/arch_verification.h).
//
// The first of these sources that names an architecture is the list; the others are not read:
// 1. [project] target_archs in kernelbot.toml, when set: the user's word;
// 2. architecture flags in [project] / [[kernel]] nvcc_flags;
// 3. the compile_commands.json entry of the kernel's source ([project] compile_commands): the
//    flags the project's build really passes for that file, CMake's target properties included;
// 4. CMAKE_CUDA_ARCHITECTURES in a CMakeCache.txt (the root's, build*/'s; the newest);
// 5. CMAKE_CUDA_ARCHITECTURES and CUDA_ARCHITECTURES properties in the repository's CMakeLists.txt
//    and *.cmake files (every setting found, under any if(): a union, said as such).
// How each word is read: profiler/evaluate/compile/arch_flags.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/gpu_arch.h"

namespace kb::profiler {

struct TargetArchs {
  std::vector<GpuArch> archs;  // distinct, ascending; "all"/"all-major" already expanded
  bool native = false;         // "native": the GPU kernelbot verifies on, resolved by the plan
  // Where the list came from ("build/compile_commands.json, the entry of src/saxpy.cu"), or, when
  // nothing was found, where kernelbot looked.
  std::string source;
  std::vector<std::string> evidence;  // the flags or settings read
  std::vector<std::string> notes;     // what could not be read, how a keyword was expanded
  bool found() const { return !archs.empty() || native; }
};

// The architectures of `spec`'s project, from the sources above. `toolkit` is the toolkit's list
// for "all"/"all-major" (nullopt: toolkit_gpu_archs(), asked only when such a word is read).
TargetArchs read_target_archs(const config::Config& config, const config::KernelSpec& spec,
                              const std::optional<std::vector<GpuArch>>& toolkit = std::nullopt);

// The virtual architectures nvcc supports (`nvcc --list-gpu-arch`), asked once; empty without nvcc.
std::vector<GpuArch> toolkit_gpu_archs();

// "sm_80, sm_90 (from build/compile_commands.json, the entry of src/saxpy.cu)", or
// "none found (looked at ...)": one line for `config check` and the logs.
std::string describe_target_archs(const TargetArchs& targets);

}  // namespace kb::profiler
