#include <iostream>

#include "bot/commands/commands.h"
#include "config/config_writer.h"

namespace kb::bot {

void register_config_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("config", "Validate or print the configuration");
  cmd->require_subcommand(1);
  auto* check = cmd->add_subcommand(
      "check", "Validate kernelbot.toml: unknown keys, wrong types, missing fields and bad values, each with its "
               "line and column (exit 2 on any)");
  check->callback([&ctx] {
    const auto& config = ctx.config();
    if (ctx.options.json) {
      std::cout << R"({"valid": true, "file": ")" << config.file.string() << R"(", "kernels": )"
                << config.kernels.size() << "}\n";
    } else {
      std::cout << config.file.string() << ": ok (" << config.kernels.size() << " kernel"
                << (config.kernels.size() == 1 ? "" : "s") << ")\n";
    }
  });
  auto* show = cmd->add_subcommand("show", "Print the effective configuration, defaults filled in");
  show->callback([&ctx] {
    const auto& config = ctx.config(/*allow_missing=*/true);
    std::cout << (ctx.options.json ? config::to_json_text(config) : config::to_toml_text(config));
  });
}

}  // namespace kb::bot
