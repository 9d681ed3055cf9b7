#include "bot/commands/commands.h"
#include "bot/commands/not_implemented.h"

namespace kb::bot {

void register_pr_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("pr", "Open or update the pull request for a saved winner");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    ctx.config();
    not_implemented("pr", "issue #5");
  });
}

}  // namespace kb::bot
