#include "bot/kernel_search.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <stdexcept>

#include "bot/cli_context.h"
#include "profiler/device_query.h"
#include "profiler/gpu_evaluator.h"
#include "search/archive.h"
#include "search/proposer_factory.h"
#include "search/search_engine.h"

namespace kb::bot {

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void collect_winner_metrics(const config::Config& config, const config::KernelSpec& spec, Evaluator& evaluator,
                            search::SearchResult& result) {
  const auto* best = result.best();
  if (!best || best->verdict != Verdict::accepted) return;
  spdlog::info("{}: collecting hardware counters of the winner {} and the original for the PR", spec.name, best->id);
  Variant original{read_text(config.resolve(spec.source)), {}, {}, "original"};
  CompiledVariant base = evaluator.compile(spec, original);
  CompiledVariant winner = evaluator.compile(spec, best->variant);
  EvalOptions options;
  options.time = false;  // the timings stay those of the search; this run only verifies and counts
  options.collect_metrics = true;
  EvalResult metrics;
  try {
    metrics = evaluator.evaluate(spec, base, winner, options);
  } catch (const std::exception& e) {
    metrics.verdict = Verdict::infra_error;
    metrics.reason = e.what();
  }
  if (!verdict_is_correct(metrics.verdict)) {
    // Not a silent success: the PR says the counters are missing and why.
    spdlog::warn("{}: the metrics run of the winner ended {}: {}", spec.name, to_string(metrics.verdict), metrics.reason);
    for (auto& c : result.tree)
      if (c.id == best->id && c.eval.candidate_metrics.status != "ok")
        c.eval.candidate_metrics.status = std::string("metrics run ended ") + to_string(metrics.verdict) + ": " +
                                          metrics.reason;
    return;
  }
  for (auto& c : result.tree)
    if (c.id == best->id) {
      c.eval.baseline_metrics = metrics.baseline_metrics;
      c.eval.candidate_metrics = metrics.candidate_metrics;
    }
}

search::SearchResult search_kernel(const config::Config& config, const config::KernelSpec& kernel,
                                   const KernelSearchOptions& options) {
  const config::KernelSpec* spec = &kernel;
  search::ProposerOptions proposer_options;
  proposer_options.name = options.proposer.empty() && !options.replay.empty() ? "replay" : options.proposer;
  if (!options.replay.empty()) proposer_options.replay_file = std::filesystem::absolute(options.replay);
  if (!options.record.empty()) proposer_options.record_file = std::filesystem::absolute(options.record);
  // Before any GPU work: a bad proposer setup (no API key, no replay file) fails fast (UsageError).
  auto proposer = search::make_proposer(config, *spec, proposer_options);
  auto devices = profiler::query_devices();  // NoDeviceError: exit 1
  std::vector<std::unique_ptr<Evaluator>> evaluators;
  for (const auto& d : devices) evaluators.push_back(profiler::make_gpu_evaluator(config, d.index));
  std::unique_ptr<search::Archive> archive;
  if (!options.no_archive)
    archive = std::make_unique<search::Archive>(options.archive.empty() ? config.resolve(config.search.archive)
                                                                     : std::filesystem::absolute(options.archive));
  spdlog::info("searching '{}' with the {} proposer on {} GPU{} ({})", spec->name, proposer->name(), devices.size(),
               devices.size() == 1 ? "" : "s", devices.front().name);

  search::SearchRequest request;
  request.config = &config;
  request.spec = spec;
  request.evaluator = evaluators.front().get();
  for (size_t i = 1; i < evaluators.size(); ++i) request.more_evaluators.push_back(evaluators[i].get());
  request.proposer = proposer.get();
  request.archive = archive.get();
  request.on_progress = [](const search::SearchProgress& p) {
    spdlog::info("round {}: {}/{} candidates, best {:.2f}x: {}", p.round, p.candidates_done, p.candidates_planned,
                  p.best_speedup, p.message);
  };
  auto result = search::run_search(request);
  collect_winner_metrics(config, *spec, *evaluators.front(), result);
  return result;
}

}  // namespace kb::bot
