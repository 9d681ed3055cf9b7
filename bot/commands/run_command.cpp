#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/main_job.h"
#include "common/text_table.h"

namespace kb::bot {
namespace {

void print_summary(const std::vector<KernelOutcome>& rows) {
  TextTable table({"kernel", "original us", "best us", "speedup", "result", "pull request / note"});
  for (const auto& r : rows)
    table.add_row({r.kernel, r.baseline_us > 0 ? fmt::format("{:.2f}", r.baseline_us) : "-",
                   r.best_us > 0 ? fmt::format("{:.2f}", r.best_us) : "-",
                   r.speedup > 0 ? fmt::format("{:.2f}x", r.speedup) : "-", r.verdict,
                   r.pr.empty() ? r.note : r.pr});
  std::cout << "\n" << table.render();
}

}  // namespace

void register_run_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "run",
      "The main job: search each target kernel and open (or update) a pull request for each verified winner. "
      "Exit 0 when every kernel was searched, also when nothing faster was found; 1 when a kernel failed");
  auto opts = std::make_shared<MainJobOptions>();
  auto rounds = std::make_shared<int64_t>(0);
  auto max_candidates = std::make_shared<int64_t>(0);
  cmd->add_option("--kernel", opts->kernel, "Only this [[kernel]] (default: all of them)");
  cmd->add_flag("--dry-run", opts->dry_run,
                "Write the PRs under .kernelbot/prs/ instead of pushing and calling GitHub");
  cmd->add_option("--proposer", opts->search.proposer, "auto, llm, builtin or replay (overrides [search].proposer)")
      ->check(CLI::IsMember({"auto", "llm", "builtin", "replay"}));
  // Existence is checked per kernel, where a directory or {kernel} path names the file.
  cmd->add_option("--replay", opts->search.replay,
                  "Replay recorded model replies: a FILE, a directory of <kernel>.jsonl files, or a path with "
                  "{kernel} in it");
  cmd->add_option("--rounds", *rounds, "Rounds of ideas (overrides [search].rounds)")->check(CLI::PositiveNumber);
  cmd->add_option("--max-candidates", *max_candidates, "Candidates per kernel (overrides [search].max_candidates)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-archive", opts->search.no_archive, "Neither reuse nor record candidates in the archive");
  cmd->callback([&ctx, opts, rounds, max_candidates] {
    config::Config config = ctx.config();
    if (*rounds > 0) config.search.rounds = *rounds;
    if (*max_candidates > 0) config.search.max_candidates = *max_candidates;
    auto rows = run_main_job(config, *opts);
    bool failed = false;
    for (const auto& r : rows) failed |= r.failed;
    if (ctx.options.json) {
      auto j = nlohmann::json::array();
      for (const auto& r : rows)
        j.push_back({{"kernel", r.kernel}, {"baseline_us", r.baseline_us}, {"best_us", r.best_us},
                     {"speedup", r.speedup}, {"result", r.verdict}, {"pr", r.pr}, {"note", r.note},
                     {"failed", r.failed}});
      std::cout << j.dump(2) << "\n";
    } else {
      print_summary(rows);
    }
    if (failed) ctx.exit_code = 1;
  });
}

}  // namespace kb::bot
