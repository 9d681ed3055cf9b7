// Reading which GPU architectures a build compiles for, from the words a build writes them in:
// nvcc's flags (a compile_commands.json entry, [project] nvcc_flags) and CMake's settings
// (CMAKE_CUDA_ARCHITECTURES in CMakeCache.txt, `set(...)` and the CUDA_ARCHITECTURES property in
// a CMakeLists.txt). Pure text functions; profiler/evaluate/archs/target_archs.h decides which source
// counts for a kernel. The reader is deliberately simple: what it cannot read (a variable, a
// generator expression, a word it does not know) it lists in `unread` rather than guesses.
//
// What the words mean, as nvcc and CMake define them:
// - `-gencode arch=compute_80,code=sm_80` (and `--generate-code`, `code=[sm_80,compute_80]`): the
//   virtual architecture compute_80, which is what `__CUDA_ARCH__` follows (800); `code=` names
//   the SASS or PTX kept and changes no preprocessor branch, so only `arch=` is read.
// - `-arch=sm_80` / `--gpu-architecture=compute_80`: compute_80. nvcc takes the last -arch when
//   there are several (it warns) and adds every -gencode to it.
// - `-arch=native` / CMake `native`: the GPU of the machine that builds; kernelbot builds on the
//   machine it verifies on, so it is the judge's GPU (`native` below).
// - `-arch=all`, `all-major` (nvcc and CMake): every architecture the toolkit supports, or each
//   major one (sm_X0) and the oldest; expanded with the toolkit's own list (`keywords` below).
// - `-code=`/`--gpu-code`: ignored (see code= above). clang's `--cuda-gpu-arch=sm_80` and
//   `--offload-arch=sm_80` are read as -arch.
// - CMake `80`, `80-real`, `80-virtual`, `90a`: compute_80 (compute_90a); `OFF`: no flag at all.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_arch.h"

namespace kb::profiler {

// What one source of build settings says about the architectures it compiles for.
struct ArchReading {
  std::vector<GpuArch> archs;         // distinct, ascending
  bool native = false;                // -arch=native, CMake "native": the building machine's GPU
  std::vector<std::string> keywords;  // "all", "all-major", as written: the toolkit's list expands them
  std::vector<std::string> evidence;  // the flags or settings read, as written ("-gencode arch=compute_80,code=sm_80")
  std::vector<std::string> unread;    // what it could not read, one line each
  // Whether it names any architecture (a keyword counts).
  bool found() const { return !archs.empty() || native || !keywords.empty(); }
};

// The architectures of one compiler invocation's arguments (response files already expanded).
ArchReading archs_from_nvcc_flags(const std::vector<std::string>& args);

// One CMake architecture list: "80;86-real;90a-virtual", "native", "all-major", "OFF".
ArchReading archs_from_cmake_value(const std::string& value);

// CMAKE_CUDA_ARCHITECTURES from a CMakeCache.txt's text (CMake writes the compiler's default there
// when the project sets none); nothing found when the cache has no such entry.
ArchReading archs_from_cmake_cache(const std::string& text);

// `set(CMAKE_CUDA_ARCHITECTURES ...)`, `set_target_properties(... PROPERTIES CUDA_ARCHITECTURES ...)`
// and `set_property(TARGET ... PROPERTY CUDA_ARCHITECTURES ...)` in a CMakeLists.txt (or .cmake)
// text, every one found, whatever if() it stands under; `file` names it in the evidence and the
// unread lines ("CMakeLists.txt:12").
ArchReading archs_from_cmakelists(const std::string& text, const std::string& file);

// `flags` without the architecture switches above (-gencode, -arch, -code and their spellings,
// with their values): the judge's compile and each target architecture's set their own.
std::vector<std::string> without_arch_flags(const std::vector<std::string>& flags);

// The toolkit's architectures (nvcc --list-gpu-arch's compute_XX lines, in any order) that an
// "all" or "all-major" keyword stands for: all of them, or those with minor 0 and the oldest.
std::vector<GpuArch> expand_arch_keyword(const std::string& keyword, const std::vector<GpuArch>& toolkit);

// Adds `more` to `into` (archs kept distinct and sorted, lists appended).
void merge_reading(ArchReading& into, const ArchReading& more);

}  // namespace kb::profiler
