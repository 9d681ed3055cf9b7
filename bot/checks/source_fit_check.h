// `config check` of the [[kernel]] fields that only the source can judge besides the launcher and
// its arguments (bot/checks/launcher_check.h): each `tunables` macro is read somewhere in the kernel's
// source, the headers of the repository it includes, or its extra_sources (a -D the code never
// reads changes nothing, and a search would spend its budget on it); a kernel target's
// `template_args` fit its __global__ function (none for a function that is no template, some for
// a template without defaults, no more than it has parameters) and its grid, block and
// shared_bytes name only what the shim binds (bot/checks/launch_names_check.h), so that a mistake is
// reported at the config's line instead of as a compile error inside the generated entry shim.
#pragma once

#include "bot/checks/launcher_check.h"
#include "config/config.h"

namespace kb::bot {

// Appends the errors of every [[kernel]] of `config` to `out`.
void check_source_fit(const config::Config& config, LauncherFindings& out);

}  // namespace kb::bot
