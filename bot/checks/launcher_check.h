// `config check` against the source: each [[kernel]]'s launcher exists in its `source` file (the
// overload whose parameter count fits; a did-you-mean for a misspelling), its [[kernel.arg]]s
// match the parameters in number and order, each role and dtype fits the parameter's type
// (aliases resolved as `init` resolves them), and no size set asks for more memory than the GPU
// has. Errors name the config file:line and the source file:line of the parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/config_error.h"

namespace kb::bot {

struct LauncherFindings {
  std::vector<config::ConfigDiagnostic> errors;
  std::vector<config::ConfigDiagnostic> warnings;  // format() says "error"; print them as warnings
};

struct MemoryLimit {
  int64_t bytes = 0;
  std::string source;  // "the GPU's 79.1 GiB (NVIDIA H100 80GB HBM3)" or "an assumed 80 GiB (no GPU here)"
};

LauncherFindings check_launchers(const config::Config& config, const MemoryLimit& memory);

// The first GPU's memory when the CUDA runtime can tell, else the stated 80 GiB assumption.
MemoryLimit device_memory_limit();

}  // namespace kb::bot
