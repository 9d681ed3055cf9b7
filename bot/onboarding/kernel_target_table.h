// `init`'s kernel targets (config/kernel_target.h): for kernels launched inline where no launcher
// target can drive the launch (from main(), or from a function with a parameter no role supplies:
// a tensor-like struct, a handle, a reference to a class), a [[kernel]] that names the
// __global__ function, with its grid, block, shared bytes (and template arguments) read from
// the launch sites as written (dim3 shapes, literal template arguments), its roles from how the
// body uses each buffer, each with a `# check:` note. `discover` says which launches these are.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "cuda_source/knobs/kernel_launch_sites.h"
#include "cuda_source/reading/buffer_uses.h"
#include "cuda_source/reading/type_aliases.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

// Why `launcher` cannot be a launcher target, or nullopt when it can (as far as its parameter
// types tell; `aliases` resolve them as init does).
std::optional<std::string> undrivable_launcher(const cuda_source::ScannedLauncher& launcher,
                                               const cuda_source::TypeAliases& aliases);

struct KernelTargetDraft {
  std::string text;          // the [[kernel]] table, comments included
  std::string not_drivable;  // non-empty: a kernel parameter no role drives; write it commented out
};

using TextOf = std::function<const std::string&(const std::string&)>;

// The table of `kernel` as launched at `sites` (every launch of it; the first is described), named
// `name`; `text_of(file)` gives a scanned file's text, `lookup` the helpers the kernel calls.
KernelTargetDraft render_kernel_target(const cuda_source::ScannedKernel& kernel,
                                       const std::vector<cuda_source::KernelLaunchSite>& sites, const TextOf& text_of,
                                       const std::string& name, const cuda_source::TypeAliases& aliases,
                                       const cuda_source::FunctionLookup& lookup = {});

}  // namespace kb::bot
