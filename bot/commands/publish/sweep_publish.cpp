#include "bot/commands/publish/sweep_publish.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <set>

#include "bot/commands/publish/base_check.h"
#include "bot/forge/forge.h"
#include "bot/pr_comments/pr_command_actions.h"
#include "bot/publish/publish.h"
#include "core/errors.h"
#include "search/archive/archive.h"
#include "search/archive/archive_exchange.h"

namespace kb::bot {
namespace {

void check_one_sweep(const std::vector<SweepBundle>& bundles) {
  if (bundles.empty()) throw UsageError("no shard directories given");
  const auto& first = bundles.front().manifest;
  for (const auto& b : bundles)
    if (b.manifest.shard.count != first.shard.count || b.manifest.plan.shards != first.plan.shards)
      throw UsageError(fmt::format("{} and {} are not shards of one sweep: their plans differ (did the runners see "
                                   "different archives or configs?)",
                                   bundles.front().dir.string(), b.dir.string()));
}

void merge_archives(const std::vector<SweepBundle>& bundles, const std::filesystem::path& archive) {
  search::Archive store(archive);
  for (const auto& b : bundles) {
    auto file = bundle_archive_file(b.dir);
    if (!std::filesystem::exists(file)) continue;
    auto stats = search::merge_rows(store, search::read_archive_export(file));
    spdlog::info("archive: {} rows from shard {}/{} added or improved, {} already known", stats.changed,
                 b.manifest.shard.index, b.manifest.shard.count, stats.kept);
  }
}

// The speedup a result would be published with (0: none): its re-verified PR text's, since that
// is what the PR would say; a result that a shard did not re-verify, or whose text failed, has none.
double publishable_speedup(const config::Config& config, const search::SearchResult& r) {
  const auto* best = pr_worthy_winner(config, r);
  return best && r.reverification.ran && r.reverification.passed ? r.reverification.eval.speedup : 0;
}

}  // namespace

std::vector<KernelOutcome> publish_sweep(const config::Config& config, const std::vector<SweepBundle>& bundles,
                                         const std::filesystem::path& archive, Forge& forge) {
  check_one_sweep(bundles);
  if (!archive.empty()) merge_archives(bundles, archive);

  // Each kernel's best result over the shards (a shard re-run, or two runs of one shard, may overlap).
  std::map<std::string, const search::SearchResult*> best;
  std::map<std::string, std::string> failures;
  std::set<int> shards_seen;
  for (const auto& b : bundles) {
    shards_seen.insert(b.manifest.shard.index);
    for (const auto& k : b.manifest.kernels)
      if (k.failed) failures.emplace(k.kernel, fmt::format("shard {}: {}", b.manifest.shard.index, k.note));
    for (const auto& [kernel, result] : b.results) {
      auto& slot = best[kernel];
      if (!slot || publishable_speedup(config, result) > publishable_speedup(config, *slot)) slot = &result;
    }
  }

  const bool dry = forge.name() == "dry-run";
  // The commands on the bot's PRs are answered here too (this job has no GPU: rebench and rebase
  // are left for the next `kernelbot run`), and an `@kernelbot ignore` holds for this publish.
  converse_before_run(config, forge, nullptr, dry);
  std::vector<KernelOutcome> outcomes;
  const auto& plan = bundles.front().manifest.plan;
  for (const auto& spec : config.kernels) {
    KernelOutcome row{spec.name, 0, 0, 0, "", "", "", false, {}};
    auto it = best.find(spec.name);
    if (it == best.end()) {
      int owner = -1;
      for (size_t s = 0; s < plan.shards.size(); ++s)
        for (const auto& k : plan.shards[s])
          if (k == spec.name) owner = static_cast<int>(s);
      if (owner < 0) continue;  // not a target of this sweep (e.g. run with --kernel)
      row.failed = true;
      row.verdict = "failed";
      row.note = failures.count(spec.name)  ? failures[spec.name]
                 : shards_seen.count(owner) ? "its shard saved no result"
                                            : fmt::format("shard {}/{} is missing: nobody's results for it were given",
                                                          owner, plan.shards.size());
      outcomes.push_back(row);
      continue;
    }
    const auto& result = *it->second;
    if (std::string why = ignored_on_request(config, spec); !why.empty()) {
      outcomes.push_back({spec.name, 0, 0, 0, "ignored", "", why, false, {}});
      continue;
    }
    try {
      if (auto refused = original_differs_from_base(config, spec, result)) {
        row = published_outcome(spec.name, result, PublishOutcome{}, dry);
        row.verdict = "refused";
        row.note = *refused;
        spdlog::warn("{}: {}", spec.name, *refused);
      } else {
        // No GPU here: a shard re-verified its winner's PR text on its GPU before saving it, and
        // that record must have passed and be of exactly the text spliced here. A winner without
        // one (a shard of an older kernelbot, a hand-made directory) is refused, with exit 1.
        row = published_outcome(spec.name, result, publish_result(config, spec, result, forge, PublishOptions{}), dry);
      }
      spdlog::info("{}: {}{}{}", spec.name, row.verdict, row.pr.empty() ? "" : " " + row.pr,
                   row.note.empty() ? "" : " (" + row.note + ")");
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", spec.name, e.what());
      row.failed = true;
      row.verdict = "failed";
      row.note = e.what();
    }
    outcomes.push_back(row);
  }
  for (const auto& [kernel, result] : best)
    if (!config.find_kernel(kernel))
      outcomes.push_back(
          {kernel, 0, 0, 0, "failed", "", "no [[kernel]] of that name in " + config.file.string(), true, {}});
  return outcomes;
}

}  // namespace kb::bot
