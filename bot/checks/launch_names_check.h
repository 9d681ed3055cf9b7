// `config check` of the names a kernel target's grid, block and shared_bytes read. The entry shim
// (profiler/evaluate/compile/global_launch.h) evaluates them with only the [[kernel.arg]]s bound by name,
// block_x/y/z, ceil_div, min and max, after the kernel's source (its macros and file-scope
// constants); any other name (a template parameter of the kernel, a local of main(), a typo) would
// fail `check --compile` inside the generated shim, far from the cause. Reported here instead, at
// the config's line, naming the field and the file searched.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace kb::bot {

struct LaunchNameProblem {
  std::string key;  // "grid", "block", "shared_bytes"
  std::string message;
};

// The names the code defines for the whole file: #define macros (object- or function-like) and
// `const`/`constexpr` variables and enumerators declared outside function bodies, of each text.
std::vector<std::string> file_scope_names(const std::vector<std::string>& texts);

// The problems of `k`'s launch expressions when `defined` are the names its source (with the
// headers it includes) defines; none for a launcher target. `source_label` names the file in the
// message ("src/gemm.cu").
std::vector<LaunchNameProblem> launch_name_problems(const config::KernelSpec& k,
                                                    const std::vector<std::string>& defined,
                                                    const std::string& source_label);

}  // namespace kb::bot
