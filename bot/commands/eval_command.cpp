#include "bot/commands/commands.h"
#include "bot/commands/not_implemented.h"

namespace kb::bot {

void register_eval_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("eval", "Verify and time one candidate file against the original kernel");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    ctx.config();
    not_implemented("eval", "issue #3");
  });
}

}  // namespace kb::bot
