// Whether a compiled variant library loads the way a GPU run loads it, checked without a GPU
// (`kernelbot check --compile`): `kernelbot-harness --load-check` dlopens it (RTLD_NOW, as a
// variant server does) in a sandboxed child, so a hostile static initializer cannot touch the bot,
// and in the same sandbox and file-system view as a real run. When it does not load, the loader's
// message is kept, and an undefined symbol is named with the library that probably provides it:
// a missing `link_libs` entry shows in CI instead of on the GPU machine.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "profiler/evaluate/jobs/harness_process.h"

namespace kb::profiler {

struct LoadCheck {
  bool loaded = false;
  std::string message;           // the loader's message when not loaded, or why the check failed
  std::string undefined_symbol;  // from "undefined symbol: X", demangled when it is C++
  std::string provider;          // what probably defines it ("libcublas (link_libs = [\"cublas\"])"); "" unknown
};

// Runs `harness --load-check library` sandboxed per `limits` (working directory `dir`, created),
// and, when it fails on an undefined symbol, looks for the provider in `search_dirs`.
LoadCheck check_library_loads(const std::string& harness, const std::string& library, const std::filesystem::path& dir,
                              const HarnessLimits& limits, const std::vector<std::filesystem::path>& search_dirs);

// The symbol of the loader's "undefined symbol: X" (up to the next space, comma or parenthesis);
// "" when the message names none.
std::string undefined_symbol_in(const std::string& loader_message);

// The library that probably defines `symbol` (mangled or not): a CUDA library known by the
// symbol's prefix (cublas..., cufft..., cuModule... = the driver), else the first lib*.so in
// `search_dirs` whose dynamic symbol table defines it (read with nm). "" when none is found.
std::string likely_provider(const std::string& symbol, const std::vector<std::filesystem::path>& search_dirs);

}  // namespace kb::profiler
