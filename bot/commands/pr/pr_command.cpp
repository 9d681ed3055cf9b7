#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bot/change/result_store.h"
#include "bot/commands/commands.h"
#include "bot/forge/forge_factory.h"
#include "bot/publish/publish.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/gpu_evaluator.h"

namespace kb::bot {
namespace {

// This machine's first GPU, to re-verify the PR's text on; null without one, and then only a
// saved re-verification record of the same texts that passed can open the PR.
std::unique_ptr<Evaluator> local_gpu(const config::Config& config) {
  try {
    auto devices = profiler::query_devices();
    return profiler::make_gpu_evaluator(config, devices.front().index);
  } catch (const profiler::NoDeviceError& e) {
    spdlog::warn("{}", e.what());
    spdlog::warn("without a GPU the PR's text cannot be re-verified here: only the saved result's own "
                 "re-verification record, of the same texts and passed, can open the PR");
    return nullptr;
  }
}

}  // namespace

void register_pr_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "pr",
      "Open or update the pull request for a saved winner (.kernelbot/results/<kernel>/), e.g. after a network "
      "failure. The PR's exact text (the winner spliced into the source the search measured) is re-verified and "
      "re-timed on this machine's GPU first, and the PR carries those numbers. Without a GPU, only a saved "
      "re-verification of the same texts that passed (written by `kernelbot run`) can open it. Exit 1 when there is "
      "no PR: the source file changed since the search, the text failed re-verification, or nothing could verify it");
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
    auto gpu = local_gpu(config);
    auto outcome = publish_result(config, *spec, result, *forge, {gpu.get(), "kernelbot pr"});
    if (!outcome.published) {
      const std::string prefix = "no PR: ";  // publish's notes say it already; said once here
      std::string why = outcome.note.starts_with(prefix) ? outcome.note.substr(prefix.size()) : outcome.note;
      throw Error("no PR for '" + *kernel + "': " + why);
    }
    if (ctx.options.json) {
      std::cout << nlohmann::json{{"ok", true},           {"exit_code", 0},
                                  {"kernel", *kernel},    {"forge", forge->name()},
                                  {"pr", outcome.pr},     {"created", outcome.created},
                                  {"note", outcome.note}, {"saved", outcome.saved}}
                       .dump(2)
                << "\n";
      return;
    }
    std::cout << (forge->name() == "dry-run" ? "dry-run PR written: "
                  : outcome.created          ? "PR opened: "
                                             : "PR updated: ")
              << outcome.pr << "\n";
    if (!outcome.note.empty()) std::cout << "note: " << outcome.note << "\n";
  });
}

}  // namespace kb::bot
