// `init`'s kernel targets (config/kernel_target.h): for kernels launched inline where no launcher
// target can drive the launch (from main(), or from a function with a parameter no role supplies:
// a tensor-like struct, a handle, a reference to a class), a [[kernel]] that names the
// __global__ function, with its grid, block, shared bytes (and template arguments) guessed from
// the launch site, each with a `# check:` note. `discover` says which launches these are.
#pragma once

#include <optional>
#include <string>

#include "cuda_source/kernel_launch_sites.h"
#include "cuda_source/source_scanner.h"
#include "cuda_source/type_aliases.h"

namespace kb::bot {

// Why `launcher` cannot be a launcher target, or nullopt when it can (as far as its parameter
// types tell; `aliases` resolve them as init does).
std::optional<std::string> undrivable_launcher(const cuda_source::ScannedLauncher& launcher,
                                               const cuda_source::TypeAliases& aliases);

struct KernelTargetDraft {
  std::string text;          // the [[kernel]] table, comments included
  std::string not_drivable;  // non-empty: a kernel parameter no role drives; write it commented out
};

// The table of `kernel` (whose file's text is `kernel_file_text`) as launched at `site`, named `name`.
KernelTargetDraft render_kernel_target(const cuda_source::ScannedKernel& kernel, const std::string& kernel_file_text,
                                       const cuda_source::KernelLaunchSite& site, const std::string& site_file_text,
                                       const std::string& name, const cuda_source::TypeAliases& aliases);

}  // namespace kb::bot
