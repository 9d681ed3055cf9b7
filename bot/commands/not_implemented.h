// For subcommands whose machinery is still being built: a clear error and exit 1, never fake output.
#pragma once

#include <string>

#include "bot/cli_context.h"

namespace kb::bot {

[[noreturn]] inline void not_implemented(const std::string& command, const std::string& issue) {
  throw CommandFailed("`kernelbot " + command + "` is not implemented yet (" + issue + ")");
}

}  // namespace kb::bot
