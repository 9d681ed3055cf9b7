// One validation for every command that acts on the configured kernels: `config check`, `check`,
// `check --compile`, `profile` and `run` call validated_config() first, so they accept and reject
// the same files. It loads the file (syntax, keys, types, values, counts at every size set:
// config/config_loader.h), refuses a config without any [[kernel]] table, then checks each
// [[kernel]] against its source (bot/checks/launcher_check.h: the launcher exists, the args fit its
// parameters, the buffers fit on the GPU). Fields still "TODO" are not errors here; the commands
// that run a kernel refuse them afterwards (bot/cli/unfinished_kernel.h).
#pragma once

#include "bot/checks/launcher_check.h"
#include "bot/cli/cli_context.h"
#include "config/config.h"

namespace kb::bot {

// The findings that make a loaded config unusable for a command on its kernels: the launcher
// check's errors plus "no [[kernel]] table". Warnings are returned for the caller to print.
LauncherFindings validate_loaded_config(const config::Config& config, const MemoryLimit& memory);

// Loads ctx's config and validates it as above; prints the warnings to stderr and throws
// config::ConfigError (exit 2) with every error.
const config::Config& validated_config(CliContext& ctx);

}  // namespace kb::bot
