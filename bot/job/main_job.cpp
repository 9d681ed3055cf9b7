#include "bot/job/main_job.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <exception>
#include <memory>
#include <thread>

#include "bot/cli/cli_context.h"
#include "bot/forge/forge_factory.h"
#include "bot/job/publish_queue.h"
#include "bot/job/sweep_shard.h"
#include "bot/pr_comments/pr_command_actions.h"
#include "bot/publish/dashboard.h"
#include "bot/publish/publish.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "profiler/evaluate/original_variant.h"
#include "search/engine/compile_priority.h"
#include "search/types/advisory_findings.h"

namespace kb::bot {

KernelOutcome published_outcome(const std::string& kernel, const search::SearchResult& result,
                                const PublishOutcome& published, bool dry_run) {
  KernelOutcome row{kernel, 0, 0, 0, "", published.pr, published.note, published.failed, {}};
  for (const auto& a : result.advisories) row.advisories.push_back(search::advisory_text(a));
  if (const auto* base = result.find(search::kBaselineId)) row.baseline_us = base->median_us();
  if (const auto* best = result.best()) {
    row.best_us = best->median_us();
    row.speedup = best->speedup();
  }
  if (const auto& r = published.reverification; published.published && !r.eval.timings.empty()) {
    row.baseline_us = r.eval.timings.front().baseline.median_us;
    row.best_us = r.eval.timings.front().candidate.median_us;
    row.speedup = r.eval.speedup;
  }
  row.verdict = published.refused             ? "refused"
                : published.failed            ? "failed"
                : published.vetoed            ? "PR vetoed"
                : !published.withheld.empty() ? published.withheld
                : !published.published        ? (result.best() ? "no PR" : "no faster kernel")
                : dry_run                     ? "dry-run PR"
                : published.created           ? "PR opened"
                                              : "PR updated";
  return row;
}

namespace {

// The row of a kernel whose search or publishing failed with `why`.
KernelOutcome failed_outcome(const std::string& kernel, const std::string& why) {
  return {kernel, 0, 0, 0, "failed", "", why, true, {}};
}

// Compiles the originals of the kernels after the first into the compile cache while the first
// is searched (its GPU work leaves the CPU mostly idle), so that each later search starts by
// measuring its original instead of waiting for nvcc. Only the cache changes; a source that does
// not compile is reported by its own search, as before.
std::jthread compile_originals_ahead(const config::Config& config, std::vector<const config::KernelSpec*> targets,
                                     Evaluator& evaluator) {
  return std::jthread([&config, targets = std::move(targets), &evaluator](std::stop_token stop) {
    // Below the first search's judge and its round's compiles (nvcc inherits it).
    search::lower_this_thread_priority(search::kSpeculativeCompileNice);
    for (size_t i = 1; i < targets.size() && !stop.stop_requested(); ++i) {
      try {
        evaluator.compile(*targets[i], profiler::original_variant(config, *targets[i]));
      } catch (const std::exception&) {
        // Its search reads, compiles and reports the original itself.
      }
    }
  });
}

}  // namespace

std::vector<KernelOutcome> run_main_job(const config::Config& config, const MainJobOptions& options) {
  std::vector<const config::KernelSpec*> targets;
  std::vector<KernelOutcome> ignored;  // [github].ignore_kernels: reported, never searched
  for (const auto& k : config.kernels)
    if (options.kernel.empty() || k.name == options.kernel) {
      if (is_ignored_kernel(config, k.name))
        ignored.push_back({k.name, 0, 0, 0, "ignored", "", "listed in [github].ignore_kernels", false, {}});
      else targets.push_back(&k);
    }
  if (targets.empty() && !ignored.empty()) return ignored;
  if (targets.empty())
    throw UsageError(options.kernel.empty()
                         ? "no [[kernel]] in " + config.file.string() + ": nothing to do"
                         : "no [[kernel]] named '" + options.kernel + "' in " + config.file.string());
  const std::filesystem::path archive = options.search.no_archive ? std::filesystem::path()
                                        : options.search.archive.empty()
                                            ? config.resolve(config.search.archive)
                                            : std::filesystem::absolute(options.search.archive);
  const Shard shard = options.shard.value_or(Shard{});
  ShardedTargets sharded = shard_targets(targets, shard, options.shard ? archive : std::filesystem::path());
  targets = sharded.mine;  // more shards than kernels leaves some empty: nothing to do is a result
  // The cheap preconditions before looking for a GPU: the kernels (above), each one's proposer and
  // the model's endpoint (one request, once), and the token of the forge.
  check_search_setup(config, targets, options.search);
  KernelSearchOptions search_options = options.search;
  search_options.preflight = false;  // done once above
  std::unique_ptr<Forge> forge = options.no_publish ? nullptr : make_forge(config, options.dry_run);
  auto devices = profiler::query_devices();  // no GPU: NoDeviceError
  // The PR's text is re-verified on the first GPU after each search (bot/change/reverify.h), also in a
  // shard, whose `kernelbot publish` has no GPU and publishes only what the shard re-verified.
  auto reverifier = profiler::make_gpu_evaluator(config, devices.front().index);
  if (options.no_publish)
    return search_into_bundle(
        config, sharded, shard, options.out, archive,
        [&](const config::KernelSpec& spec) { return search_kernel(config, spec, search_options); }, *reverifier,
        fmt::format("kernelbot run --shard {}/{} --no-publish", shard.index, shard.count));
  const bool dry = forge->name() == "dry-run";
  spdlog::info("kernelbot run: {} kernel{} on {} ({} GPU{}), PRs through the {} forge", targets.size(),
               targets.size() == 1 ? "" : "s", devices.front().name, devices.size(), devices.size() == 1 ? "" : "s",
               forge->name());

  // People's commands on the bot's PRs come first: an `@kernelbot ignore` answered now holds for
  // this run's searches, and a rebench measures before the GPU is busy with searches.
  converse_before_run(config, *forge, reverifier.get(), dry);
  dashboard_requests_before_run(config);  // a ticked box drops the kernel's ignore request
  std::erase_if(targets, [&](const config::KernelSpec* spec) {
    std::string why = ignored_on_request(config, *spec);
    if (why.empty()) return false;
    ignored.push_back({spec->name, 0, 0, 0, "ignored", "", why, false, {}});
    return true;
  });
  if (targets.empty()) return ignored;

  std::jthread originals_ahead = compile_originals_ahead(config, targets, *reverifier);
  std::vector<KernelOutcome> outcomes(targets.size());
  // The evaluators the PRs are re-verified on: the first GPU's, and one per further GPU's worker.
  std::vector<std::unique_ptr<Evaluator>> worker_reverifiers(devices.size());
  auto publish = [&](size_t i, const std::shared_ptr<const search::SearchResult>& result, Evaluator& reverify_on) {
    const auto& spec = *targets[i];
    KernelOutcome& row = outcomes[i];
    try {
      row = published_outcome(spec.name, *result,
                              publish_result(config, spec, *result, *forge, {&reverify_on, "kernelbot run"}), dry);
      reverify_on.release();  // its judge's contexts leave the GPU the later searches measure on
      spdlog::info("{}: {}{}{}", spec.name, row.verdict, row.pr.empty() ? "" : " " + row.pr,
                   row.note.empty() ? "" : " (" + row.note + ")");
    } catch (const profiler::NoDeviceError&) {
      throw;
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", spec.name, e.what());
      row = failed_outcome(spec.name, e.what());
    }
  };
  // Each search's result is published on the queue's thread while the next search runs (one
  // repository, one forge: one PR at a time, in the order the searches ended). Declared after
  // everything its tasks use, so that it finishes them first.
  PublishQueue publisher;
  // One kernel's search, its result then handed to the publisher. `search` names the GPU on several.
  auto search_then_publish = [&](size_t i, const KernelSearchOptions& search, Evaluator& reverify_on) {
    const auto& spec = *targets[i];
    spdlog::info("[{}/{}] {}{}", i + 1, targets.size(), spec.name,
                 search.device ? fmt::format(" on GPU {}", *search.device) : "");
    try {
      auto result = std::make_shared<const search::SearchResult>(search_kernel(config, spec, search));
      publisher.post([&publish, i, result, &reverify_on] { publish(i, result, reverify_on); });
    } catch (const profiler::NoDeviceError&) {
      throw;
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", spec.name, e.what());
      outcomes[i] = failed_outcome(spec.name, e.what());
    }
  };

  if (devices.size() == 1 || targets.size() == 1) {
    for (size_t i = 0; i < targets.size(); ++i) search_then_publish(i, search_options, *reverifier);
    publisher.drain();
    outcomes.insert(outcomes.end(), ignored.begin(), ignored.end());
    return outcomes;
  }
  // Several GPUs and kernels: one worker per GPU, each taking the next kernel from one queue and
  // searching it on its own GPU (its PR re-verified there too), so that no GPU waits for another's
  // round to end or original to be measured (issue #13: near-linear on several GPUs).
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> lost(devices.size());
  {
    std::vector<std::jthread> workers;
    for (size_t w = 0; w < devices.size(); ++w)
      workers.emplace_back([&, w] {
        try {
          KernelSearchOptions search = search_options;
          search.device = devices[w].index;
          if (w > 0) worker_reverifiers[w] = profiler::make_gpu_evaluator(config, devices[w].index);
          Evaluator& reverify_on = w == 0 ? *reverifier : *worker_reverifiers[w];
          for (size_t i; (i = next++) < targets.size();) search_then_publish(i, search, reverify_on);
        } catch (...) {
          lost[w] = std::current_exception();  // a GPU that vanished: NoDeviceError, after the others finish
        }
      });
  }
  publisher.drain();
  for (const auto& e : lost)
    if (e) std::rethrow_exception(e);
  outcomes.insert(outcomes.end(), ignored.begin(), ignored.end());
  return outcomes;
}

}  // namespace kb::bot
