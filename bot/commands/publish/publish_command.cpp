// `kernelbot publish DIR...`: the publishing half of a sweep split over several runners. The
// searching runners (`run --shard I/N --no-publish --out DIR`) hold no token; this command, on a
// machine without a GPU, holds the one that can push and open PRs.
#include "bot/commands/commands.h"
#include "bot/commands/outcome_table.h"
#include "bot/commands/publish/sweep_publish.h"
#include "bot/forge/forge.h"
#include "bot/forge/forge_factory.h"
#include "bot/publish/dashboard.h"

namespace kb::bot {

void register_publish_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "publish",
      "Merge the shards of a sweep (the --out directories of `run --shard I/N --no-publish`) into the archive and "
      "open or update one pull request per kernel from the best result; needs no GPU: a winner is published only on "
      "its shard's passed re-verification of exactly the PR's text. Exit 1 when a kernel failed, a winner carries no "
      "re-verification, or a shard is missing");
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto dry_run = std::make_shared<bool>(false);
  auto no_archive = std::make_shared<bool>(false);
  cmd->add_option("DIR", *dirs, "A shard's directory (one per shard)")->required();
  cmd->add_flag(
      "--dry-run", *dry_run,
      "Write the PRs, the replies to PR comments and the dashboard under .kernelbot/prs/ instead of pushing and "
      "posting (with a token, GitHub is still read for the comments and the dashboard)");
  cmd->add_flag("--no-archive", *no_archive, "Do not merge the shards' archive rows into [search].archive");
  cmd->callback([&ctx, dirs, dry_run, no_archive] {
    const auto& config = ctx.config();
    std::vector<SweepBundle> bundles;
    for (const auto& d : *dirs) bundles.push_back(read_bundle(d));
    auto forge = make_forge(config, *dry_run);  // a missing token fails here (exit 2), before any change
    auto rows = publish_sweep(config, bundles,
                              *no_archive ? std::filesystem::path() : config.resolve(config.search.archive), *forge);
    update_dashboard_after_run(config, *dry_run);
    print_outcomes(rows, ctx.options.json);
    if (any_failed(rows)) ctx.exit_code = 1;
  });
}

}  // namespace kb::bot
