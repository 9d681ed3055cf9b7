// A variant of a kernel target: the code and the compile-time choices that make it. The original
// is a variant too (its source file unchanged, no extra defines); candidates come from proposers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb {

struct Variant {
  // The full translation unit that defines the launcher and the kernels it launches. It is
  // compiled with the kernel's include dirs plus the original source's directory, so its
  // relative #includes resolve as they do in the repository.
  std::string source;
  std::vector<std::string> defines;     // extra -D (e.g. the kernel's tunable macros: "SAXPY_BLOCK=256")
  std::vector<std::string> nvcc_flags;  // extra flags (e.g. "--use_fast_math", "-Xptxas=-O3")
  std::string label;                    // short human name: "SAXPY_BLOCK=256"
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Variant, source, defines, nvcc_flags, label)

}  // namespace kb
