#include "bot/commands/commands.h"
#include "bot/commands/not_implemented.h"

namespace kb::bot {

void register_profile_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("profile", "Profile the configured kernels, or a workload: kernelbot profile -- <command>");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    ctx.config();
    not_implemented("profile", " kernelbot profile -- <command>:issue #3");
  });
}

}  // namespace kb::bot
