#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/config_validation.h"
#include "config/config_writer.h"

namespace kb::bot {

void register_config_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("config", "Validate or print the configuration");
  cmd->require_subcommand(1);
  auto* check = cmd->add_subcommand(
      "check",
      "Validate kernelbot.toml: unknown keys, wrong types, missing fields and bad values, each with its line and "
      "column; then each [[kernel]] against its source (the launcher exists, the args match its parameters in "
      "number, order, role and dtype, the buffers fit in GPU memory). Fields written \"TODO\" are listed, not "
      "errors. Exit 0 when valid (TODOs included), 2 on any error");
  check->callback([&ctx] {
    const auto& config = validated_config(ctx);  // the same checks as check, profile and run
    size_t todo = 0;
    for (const auto& k : config.kernels) todo += k.unfinished.size();
    if (ctx.options.json) {
      auto fields = nlohmann::json::array();
      for (const auto& k : config.kernels)
        for (const auto& u : k.unfinished)
          fields.push_back({{"kernel", k.name}, {"field", u.field}, {"line", u.pos.line}});
      std::cout << nlohmann::json{{"valid", true},
                                  {"file", config.file.string()},
                                  {"kernels", config.kernels.size()},
                                  {"todo", fields}}
                       .dump()
                << "\n";
      return;
    }
    for (const auto& k : config.kernels)
      for (const auto& u : k.unfinished)
        std::cout << u.pos.file << ":" << u.pos.line << ":" << u.pos.column << ": TODO: " << u.field << " (kernel '"
                  << k.name << "')\n";
    std::cout << config.file.string() << ": ok (" << config.kernels.size() << " kernel"
              << (config.kernels.size() == 1 ? "" : "s") << ")";
    if (todo > 0) std::cout << "; " << todo << " field" << (todo == 1 ? "" : "s") << " still TODO";
    std::cout << "\n";
  });
  auto* show = cmd->add_subcommand("show", "Print the effective configuration, defaults filled in");
  show->callback([&ctx] {
    const auto& config = ctx.config(/*allow_missing=*/true);
    std::cout << (ctx.options.json ? config::to_json_text(config) : config::to_toml_text(config));
  });
}

}  // namespace kb::bot
