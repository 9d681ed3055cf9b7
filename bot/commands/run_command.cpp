#include "bot/commands/commands.h"
#include "bot/commands/not_implemented.h"
#include "profiler/device_query.h"

namespace kb::bot {

void register_run_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("run", "The main job: profile, search each target kernel, and open a pull request "
                                        "for each verified winner");
  cmd->callback([&ctx] {
    ctx.config();
    profiler::query_devices();  // throws NoDeviceError (exit 1) on a machine without a GPU
    not_implemented("run", "issue #5");
  });
}

}  // namespace kb::bot
