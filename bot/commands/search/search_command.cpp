// `kernelbot search --kernel NAME`: runs the reasoning-branching search for one kernel on every
// visible GPU, prints the tree and the winner (or --json the whole SearchResult), and saves
// the result and the winning source under [search].work_dir before anything else can fail.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/cli/cli_checks.h"
#include "bot/cli/temp_dir_check.h"
#include "bot/cli/unfinished_kernel.h"
#include "bot/commands/commands.h"
#include "bot/job/kernel_search.h"
#include "common/file_write.h"
#include "common/text_table.h"
#include "core/number_format.h"
#include "search/engine/screening.h"
#include "search/types/advisory_findings.h"

namespace kb::bot {
namespace {

struct SearchOptions {
  std::string kernel;
  std::string proposer;
  int64_t rounds = 0;
  int64_t max_candidates = 0;
  double max_wall_time_s = 0;
  std::string replay;
  std::string record;
  std::string archive;
  bool no_archive = false;
};

std::string shorten(const std::string& s, size_t max) { return s.size() <= max ? s : s.substr(0, max - 3) + "..."; }

std::string speedup_cell(const search::CandidateRecord& c) {
  return verdict_is_correct(c.verdict()) ? format_speedup(c.speedup()) : "-";
}

void print_tree(const search::SearchResult& result) {
  TextTable table({"round", "id", "parent", "idea", "verdict", "speedup", "median us", "note"});
  for (const auto& c : result.tree) {
    std::string note = c.from_archive ? "from the archive" : "";
    if (!verdict_is_correct(c.verdict()) && !c.is_original()) note = shorten(c.reason(), 70);
    table.add_row({std::to_string(c.round), c.id, c.parent_id, shorten(c.idea.text, 60), to_string(c.verdict()),
                   speedup_cell(c), c.median_us() > 0 ? fmt::format("{:.2f}", c.median_us()) : "-", note});
  }
  std::cout << table.render();
}

void print_winner(const search::SearchResult& result, const std::filesystem::path& saved) {
  std::cout << "\nstopped: " << result.stop_reason << " (" << result.budget.candidates << " candidates, "
            << fmt::format("{:.0f} s", result.budget.wall_time_s);
  if (result.budget.llm_requests > 0)
    std::cout << fmt::format(", {} model requests, {} tokens, ${:.2f}", result.budget.llm_requests,
                             result.budget.prompt_tokens + result.budget.completion_tokens, result.budget.cost_usd);
  std::cout << ")\n" << search::phases_summary(result.phases) << "\n";
  for (const auto& a : result.advisories) std::cout << search::advisory_text(a) << "\n";
  const auto* best = result.best();
  if (!best) {
    std::cout << "no candidate beat the original of '" << result.kernel << "' beyond noise\n";
    return;
  }
  std::cout << fmt::format("winner: {} is {} faster than the original (geometric mean over {} sizes){}\n", best->id,
                           format_speedup(best->speedup()), best->eval.timings.size(),
                           best->from_archive ? ", measured in an earlier search (archive)" : "");
  for (const auto& t : best->eval.timings)
    std::cout << fmt::format("  {}: {} us -> {} us ({})\n", t.size_label, format_us(t.baseline.median_us),
                             format_us(t.candidate.median_us), format_speedup(t.speedup));
  std::cout << "idea path:\n";
  for (const auto* step : result.path_to(best->id)) std::cout << "  " << step->id << ": " << step->idea.text << "\n";
  if (!best->variant.defines.empty() || !best->variant.nvcc_flags.empty()) {
    std::cout << "build:";
    for (const auto& d : best->variant.defines) std::cout << " -D" << d;
    for (const auto& f : best->variant.nvcc_flags) std::cout << " " << f;
    std::cout << "\n";
  }
  std::cout << "saved: " << saved.string() << "\n";
}

// The result and the winning translation unit, written before anything is printed.
std::filesystem::path save_result(const config::Config& config, const config::KernelSpec& spec,
                                  const search::SearchResult& result) {
  auto dir = config.resolve(config.search.work_dir) / "search" / spec.name;
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "result.json", nlohmann::json(result).dump(2) + "\n");
  if (const auto* best = result.best()) {
    auto winner = dir / ("winner" + std::filesystem::path(spec.source).extension().string());
    write_file_atomically(winner, best->variant.source);
    write_file_atomically(dir / "winner.json", nlohmann::json{{"id", best->id},
                                                              {"speedup", best->speedup()},
                                                              {"defines", best->variant.defines},
                                                              {"nvcc_flags", best->variant.nvcc_flags},
                                                              {"source", winner.filename().string()}}
                                                       .dump(2) +
                                                   "\n");
    return winner;
  }
  return dir / "result.json";
}

void run(CliContext& ctx, const SearchOptions& opts) {
  config::Config config = ctx.config();
  const config::KernelSpec* spec = config.find_kernel(opts.kernel);
  if (!spec) {
    std::string names;
    for (const auto& k : config.kernels) names += (names.empty() ? "" : ", ") + k.name;
    throw UsageError("no [[kernel]] named '" + opts.kernel + "' in " + config.file.string() +
                     (names.empty() ? " (it has none)" : "; it has: " + names));
  }
  require_finished({spec});
  if (opts.rounds > 0) config.search.rounds = opts.rounds;
  if (opts.max_candidates > 0) config.search.max_candidates = opts.max_candidates;
  if (opts.max_wall_time_s > 0) config.search.max_wall_time_s = opts.max_wall_time_s;
  // No device: `kernelbot search` spreads candidates over every visible GPU.
  KernelSearchOptions search_options{opts.proposer, opts.replay,     opts.record,
                                     opts.archive,  opts.no_archive, std::nullopt};
  require_writable_temp_dir();
  search::SearchResult result = search_kernel(config, *spec, search_options);
  auto saved = save_result(config, *spec, result);

  // A search that could not ask its proposer at all failed; one that found nothing did not.
  const bool failed = result.best_id.empty() && result.stop == search::SearchStop::proposer_failed;
  if (ctx.options.json) {
    // The result with the envelope of every command's --json answer (bot/failure_report.h).
    nlohmann::json out = result;
    out["ok"] = !failed;
    out["exit_code"] = failed ? 1 : 0;
    if (failed) out["error"] = {{"kind", "failed"}, {"message", "the proposer could not be asked for any idea"}};
    std::cout << out.dump(2) << "\n";
  } else {
    print_tree(result);
    print_winner(result, saved);
  }
  if (failed) ctx.exit_code = 1;
}

}  // namespace

void register_search_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("search", "Search for a faster verified replacement of one kernel");
  auto opts = std::make_shared<SearchOptions>();
  cmd->add_option("--kernel", opts->kernel, "The [[kernel]] to optimize, by name")->required();
  cmd->add_option("--proposer", opts->proposer,
                  "Where ideas come from: auto (llm if [llm].provider is set, else builtin), llm, builtin, replay")
      ->check(CLI::IsMember({"auto", "llm", "builtin", "replay"}));
  cmd->add_option("--rounds", opts->rounds, "Rounds of ideas (overrides [search].rounds)")->check(at_least(1));
  cmd->add_option("--max-candidates", opts->max_candidates,
                  "Most candidates to compile and measure (overrides [search].max_candidates)")
      ->check(at_least(1));
  cmd->add_option("--max-wall-time", opts->max_wall_time_s,
                  "The search's seconds: no candidate starts that cannot finish within them (overrides "
                  "[search].max_wall_time_s)")
      ->check(above_zero());
  cmd->add_option("--replay", opts->replay,
                  "Replay the model replies recorded in FILE, or in DIR/<kernel>.jsonl (implies --proposer replay)");
  cmd->add_option("--record", opts->record,
                  "Record every model reply to FILE (or DIR/<kernel>.jsonl) for --replay later (or set "
                  "KERNELBOT_RECORD)");
  cmd->add_option("--archive", opts->archive, "The archive of past candidates (default: [search].archive)");
  cmd->add_flag("--no-archive", opts->no_archive, "Neither reuse nor record candidates in the archive");
  cmd->callback([&ctx, opts] { run(ctx, *opts); });
}

}  // namespace kb::bot
