// Every subcommand registers itself on the CLI11 app here; each lives in its own file.
#pragma once

#include <CLI/CLI.hpp>

#include "bot/cli/cli_context.h"

namespace kb::bot {

void register_init_command(CLI::App& app, CliContext& ctx);
void register_discover_command(CLI::App& app, CliContext& ctx);
void register_profile_command(CLI::App& app, CliContext& ctx);
void register_eval_command(CLI::App& app, CliContext& ctx);
void register_search_command(CLI::App& app, CliContext& ctx);
void register_run_command(CLI::App& app, CliContext& ctx);
void register_pr_command(CLI::App& app, CliContext& ctx);
void register_publish_command(CLI::App& app, CliContext& ctx);
void register_config_command(CLI::App& app, CliContext& ctx);
void register_check_command(CLI::App& app, CliContext& ctx);
void register_status_command(CLI::App& app, CliContext& ctx);
void register_version_command(CLI::App& app, CliContext& ctx);

}  // namespace kb::bot
