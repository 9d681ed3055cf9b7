#include "bot/job/sweep_shard.h"

#include "search/types/advisory_findings.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "bot/change/kernel_target_splice.h"
#include "bot/change/result_store.h"
#include "bot/change/reverify.h"
#include "bot/change/source_splicer.h"
#include "bot/cli/version.h"
#include "bot/job/sweep_bundle.h"
#include "bot/publish/publish.h"
#include "common/clock.h"
#include "core/number_format.h"
#include "profiler/device_query.h"
#include "search/archive/archive.h"
#include "search/archive/archive_exchange.h"
#include "search/types/advisory_findings.h"

namespace kb::bot {
namespace {

// The winner as an edit of the source it was measured against (the result's own original, so
// the patch says exactly what was measured). Empty when there is no PR-worthy winner.
std::optional<SourceChange> change_for(const config::Config& config, const config::KernelSpec& spec,
                                       const search::SearchResult& result, std::string& note) {
  const auto* best = pr_worthy_winner(config, result);
  if (!best || result.tree.empty()) return std::nullopt;
  auto path = std::filesystem::relative(config.resolve(spec.source), config.root).generic_string();
  try {
    return make_source_change(path, result.original_source(), edited_function(spec, result.original_source()),
                              best->variant);
  } catch (const std::exception& e) {
    note = std::string("the winner could not be spliced into the source: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace

ShardedTargets shard_targets(const std::vector<const config::KernelSpec*>& targets, const Shard& shard,
                             const std::filesystem::path& archive) {
  std::map<std::string, double> times;
  if (!archive.empty() && std::filesystem::exists(archive)) {
    try {
      times = last_gpu_times_us(search::Archive(archive));
    } catch (const std::exception& e) {
      // Every shard reads the same file, so every shard falls back the same way.
      spdlog::warn("shard plan: archive {} unreadable, splitting by count: {}", archive.string(), e.what());
    }
  }
  std::vector<std::string> names;
  for (const auto* t : targets) names.push_back(t->name);
  ShardedTargets out;
  out.plan = plan_shards(names, times, shard.count);
  const auto& mine = out.plan.shards[static_cast<size_t>(shard.index)];
  for (const auto* t : targets)
    if (std::find(mine.begin(), mine.end(), t->name) != mine.end()) out.mine.push_back(t);
  if (shard.count > 1)
    spdlog::info("shard {}/{}: {} of {} kernels (balanced by {}): {}", shard.index, shard.count, out.mine.size(),
                 targets.size(), out.plan.by_time ? "the last GPU times" : "count", fmt::join(mine, ", "));
  return out;
}

std::vector<KernelOutcome> search_into_bundle(const config::Config& config, const ShardedTargets& targets,
                                              const Shard& shard, const std::filesystem::path& out,
                                              const std::filesystem::path& archive, const SearchFn& search,
                                              Evaluator& reverifier, const std::string& by) {
  std::filesystem::create_directories(out);
  std::unique_ptr<search::Archive> store;
  int64_t mark = 0;
  if (!archive.empty()) {
    store = std::make_unique<search::Archive>(archive);
    mark = store->last_row_id();  // what the run adds comes after this row
  }
  BundleManifest manifest;
  manifest.kernelbot_version = kVersion;
  manifest.shard = shard;
  manifest.plan = targets.plan;
  std::vector<KernelOutcome> outcomes;
  std::vector<search::ArchiveRow> rows;
  for (const auto* spec : targets.mine) {
    KernelOutcome row{spec->name, 0, 0, 0, "", "", "", false, {}};
    try {
      auto result = search(*spec);
      if (manifest.device.empty()) manifest.device = result.device.name;
      for (const auto& a : result.advisories) row.advisories.push_back(search::advisory_text(a));
      if (const auto* base = result.find(search::kBaselineId)) row.baseline_us = base->median_us();
      if (const auto* best = result.best()) {
        row.best_us = best->median_us();
        row.speedup = best->speedup();
      }
      auto change = change_for(config, *spec, result, row.note);
      const auto dir = bundle_result_dir(out, spec->name);
      auto saved = save_result_in(dir, result, change ? &*change : nullptr);  // before anything that can fail
      row.verdict = change ? "winner saved" : "no faster kernel";
      row.pr = saved.directory.string();
      if (!change && row.note.empty() && result.best()) row.note = "no PR-worthy winner";
      if (change && !change->empty()) {
        result.reverification = reverify_pr_text(config, *spec, *change, result.best_id, reverifier, by);
        save_result_in(dir, result, &*change);
        const auto& record = result.reverification;
        if (!record.passed) {
          // As in `run`: a vetoed PR is a result; an evaluator that failed is a failure.
          row.failed = record.eval.verdict == Verdict::infra_error;
          row.verdict = row.failed ? "failed" : "PR vetoed";
          row.note = (row.failed ? "the PR's text could not be re-verified: " + record.eval.reason
                                 : "the PR's file failed re-verification: " + record.failure);
        } else {
          row.speedup = record.eval.speedup;
          row.note = "the PR's text re-verified: " + format_speedup(record.eval.speedup);
        }
      }
    } catch (const profiler::NoDeviceError&) {
      throw;
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", spec->name, e.what());
      row.failed = true;
      row.verdict = "failed";
      row.note = e.what();
    }
    if (store) {
      auto added = store->rows(spec->name, mark);
      rows.insert(rows.end(), added.begin(), added.end());
    }
    manifest.kernels.push_back({row.kernel, row.verdict, row.note, row.failed});
    outcomes.push_back(row);
  }
  search::write_archive_export(bundle_archive_file(out), rows);
  manifest.finished_at = now_iso8601();
  write_manifest(out, manifest);  // last: a shard directory with a manifest is complete
  spdlog::info("shard {}/{}: results and {} archive rows in {}", shard.index, shard.count, rows.size(), out.string());
  return outcomes;
}

}  // namespace kb::bot
