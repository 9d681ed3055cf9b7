#include "bot/checks/config_validation.h"
#include "bot/cli/cli_checks.h"
#include "bot/cli/temp_dir_check.h"
#include "bot/cli/unfinished_kernel.h"
#include "bot/commands/commands.h"
#include "bot/commands/outcome_table.h"
#include "bot/job/main_job.h"
#include "bot/publish/dashboard.h"

namespace kb::bot {

void register_run_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "run",
      "The main job: search each target kernel and open (or update) a pull request for each verified winner, "
      "after compiling, verifying and timing the PR's exact text against the original on the GPU (a text that "
      "fails or is not faster gets no PR: 'PR vetoed'). Exit 0 when every kernel was searched, also when nothing "
      "faster was found or a PR was vetoed; 1 when a kernel failed");
  auto opts = std::make_shared<MainJobOptions>();
  auto rounds = std::make_shared<int64_t>(0);
  auto max_candidates = std::make_shared<int64_t>(0);
  auto shard = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("--kernel", opts->kernel, "Only this [[kernel]] (default: all of them)");
  cmd->add_flag(
      "--dry-run", opts->dry_run,
      "Write the PRs, the replies to PR comments and the dashboard under .kernelbot/prs/ instead of pushing and "
      "posting (with a token, GitHub is still read for the comments and the dashboard)");
  cmd->add_option("--proposer", opts->search.proposer, "auto, llm, builtin or replay (overrides [search].proposer)")
      ->check(CLI::IsMember({"auto", "llm", "builtin", "replay"}));
  // Existence is checked per kernel, where a directory or {kernel} path names the file.
  cmd->add_option("--replay", opts->search.replay,
                  "Replay recorded model replies: a FILE, a directory of <kernel>.jsonl files, or a path with "
                  "{kernel} in it");
  cmd->add_option("--rounds", *rounds, "Rounds of ideas (overrides [search].rounds)")->check(at_least(1));
  cmd->add_option("--max-candidates", *max_candidates, "Candidates per kernel (overrides [search].max_candidates)")
      ->check(at_least(1));
  cmd->add_flag("--no-archive", opts->search.no_archive, "Neither reuse nor record candidates in the archive");
  // Shards on one machine need their own copies: one shard's new rows must not change the plan
  // another shard computes from the archive when it starts.
  cmd->add_option("--archive", opts->search.archive, "The archive file (overrides [search].archive)");
  cmd->add_option("--shard", *shard,
                  "I/N: search only the I-th (from 0) of N disjoint sets of the kernels, balanced by their last "
                  "measured GPU time in the archive (every shard must see the same archive)");
  auto* no_publish = cmd->add_flag(
      "--no-publish", opts->no_publish,
      "Search, re-verify each winner's PR text on the GPU, and save the results (with that record), patches and "
      "new archive rows in --out for `kernelbot publish`; no git, no GitHub, no token");
  cmd->add_option("--out", *out, "With --no-publish: the directory to write (upload it as a CI artifact)")
      ->needs(no_publish);
  cmd->callback([&ctx, opts, rounds, max_candidates, shard, out] {
    if (opts->no_publish && out->empty()) throw UsageError("--no-publish needs --out DIR: where the results go");
    if (opts->no_publish && opts->dry_run) throw UsageError("--no-publish publishes nothing: drop --dry-run");
    if (!shard->empty()) opts->shard = parse_shard(*shard);
    if (!out->empty()) opts->out = std::filesystem::absolute(*out);
    config::Config config = validated_config(ctx);
    require_finished(kernels_named(config, opts->kernel));
    if (*rounds > 0) config.search.rounds = *rounds;
    if (*max_candidates > 0) config.search.max_candidates = *max_candidates;
    require_writable_temp_dir();
    auto rows = run_main_job(config, *opts);
    // The dashboard issue shows this run's results (a shard leaves it to `kernelbot publish`).
    if (!opts->no_publish) update_dashboard_after_run(config, opts->dry_run);
    print_outcomes(rows, ctx.options.json);
    if (any_failed(rows)) ctx.exit_code = 1;
  });
}

}  // namespace kb::bot
