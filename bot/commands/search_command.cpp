#include "bot/commands/commands.h"
#include "bot/commands/not_implemented.h"

namespace kb::bot {

void register_search_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("search", "Search for a faster verified replacement of one kernel");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    ctx.config();
    not_implemented("search", "issue #4");
  });
}

}  // namespace kb::bot
