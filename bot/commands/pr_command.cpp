#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/forge_factory.h"
#include "bot/publish.h"
#include "bot/result_store.h"

namespace kb::bot {

void register_pr_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("pr",
                                 "Open or update the pull request for a saved winner (.kernelbot/results/<kernel>/), "
                                 "e.g. after a network failure; needs no GPU");
  auto kernel = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  cmd->add_option("--kernel", *kernel, "The [[kernel]] whose saved result to publish")->required();
  cmd->add_flag("--dry-run", *dry_run, "Write the PR under .kernelbot/prs/ instead of pushing and calling GitHub");
  cmd->callback([&ctx, kernel, dry_run] {
    const auto& config = ctx.config();
    const auto* spec = config.find_kernel(*kernel);
    if (!spec) throw UsageError("no [[kernel]] named '" + *kernel + "' in " + config.file.string());
    auto result = load_result(config.root, *kernel);
    auto forge = make_forge(config, *dry_run);
    auto outcome = publish_result(config, *spec, result, *forge);
    if (!outcome.published) throw Error("no PR for '" + *kernel + "': " + outcome.note);
    if (ctx.options.json) {
      std::cout << nlohmann::json{{"kernel", *kernel}, {"forge", forge->name()}, {"pr", outcome.pr},
                                  {"created", outcome.created}, {"note", outcome.note}, {"saved", outcome.saved}}
                       .dump(2)
                << "\n";
      return;
    }
    std::cout << (forge->name() == "dry-run" ? "dry-run PR written: " : outcome.created ? "PR opened: " : "PR updated: ")
              << outcome.pr << "\n";
    if (!outcome.note.empty()) std::cout << "note: " << outcome.note << "\n";
  });
}

}  // namespace kb::bot
