#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/cli/version.h"
#include "bot/commands/commands.h"

namespace kb::bot {

void register_version_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("version", "Print kernelbot's version and the toolkit it was built with");
  cmd->callback([&ctx] {
    if (ctx.options.json) {
      std::cout << nlohmann::json{{"version", kVersion},
                                  {"cuda_toolkit", kCudaToolkitVersion},
                                  {"cupti", kBuiltWithCupti}}
                       .dump(2)
                << "\n";
    } else {
      std::cout << "kernelbot " << kVersion << " (built with CUDA " << kCudaToolkitVersion
                << (kBuiltWithCupti ? "" : ", without CUPTI: no judge (kernelbot-harness)") << ")\n";
    }
  });
}

}  // namespace kb::bot
