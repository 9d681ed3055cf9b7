// The kernelbot command line as one CLI11 App: the global flags and every subcommand. main()
// parses with it, and a test holds docs/commands.md to the options it defines.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bot/cli/cli_context.h"

namespace kb::bot {

// Adds the global flags (--config, -v, -q, --json) and registers every subcommand on `app`.
void build_cli(CLI::App& app, CliContext& ctx);

// What a person reads for a command line CLI11 refused: "unknown command 'fro'; did you mean
// 'pr'?" for a word that names no command (CLI11 says "A subcommand is required"), else CLI11's
// own words (its validators in bot/cli/cli_checks.h say what the value must be).
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args);

}  // namespace kb::bot
