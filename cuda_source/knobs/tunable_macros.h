// Compile-time knobs a kernel source offers for tuning, found without running anything:
//   #ifndef NAME            (the kernel's own default, overridable with -DNAME=...)
//   #define NAME <integer>
//   #endif
// and explicit declarations, for candidates that want a sweep of their own values:
//   // kernelbot: tune NAME 64 128 256
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

// What a knob controls, which decides the values worth sweeping.
enum class MacroRole {
  block_size,       // threads per block (the block argument of a launch, or named *BLOCK*/*THREADS*)
  block_dimension,  // one factor of a multi-dimensional block (dim3 block(X, Y))
  work_per_thread,  // *PER_THREAD*, *ITEMS*, *VEC*, *UNROLL*, *ILP*...
  other,
};

// One knob: its name, default, where it is and what it controls.
struct TunableMacro {
  std::string name;
  std::optional<int64_t> default_value;  // from the #define; none for declared-only knobs
  int line = 0;
  MacroRole role = MacroRole::other;
  std::vector<std::string> declared_values;  // from a `kernelbot: tune` comment
};

// The knobs in `source`, in order of appearance. Roles come from the launches in the source
// (a knob used as a launch's block size) and from the name.
std::vector<TunableMacro> detect_tunable_macros(const std::string& source);

// The values to sweep for a knob: its declared values if any, else powers of two around the
// default within sane limits (block sizes 32..1024, one block dimension 1..1024, work per thread
// 1..16, others default/4..default*4), the default itself always included, ascending.
std::vector<std::string> sweep_values(const TunableMacro& macro);

// The role a knob's name suggests: *PER_THREAD*, *VEC*, *UNROLL*... work per thread; *BLOCK*,
// *THREADS*... block size; anything else other.
MacroRole role_from_name(const std::string& name);

const char* to_string(MacroRole role);

}  // namespace kb::cuda_source
