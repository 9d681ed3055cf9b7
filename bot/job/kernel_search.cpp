#include "bot/job/kernel_search.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "bot/checks/original_compile_failure.h"
#include "bot/cli/cli_context.h"
#include "core/number_format.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "search/archive/archive.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"

namespace kb::bot {

namespace {

search::ProposerOptions proposer_options_of(const KernelSearchOptions& options) {
  search::ProposerOptions p;
  p.name = options.proposer.empty() && !options.replay.empty() ? "replay" : options.proposer;
  if (!options.replay.empty()) p.replay_file = std::filesystem::absolute(options.replay);
  if (!options.record.empty()) p.record_file = std::filesystem::absolute(options.record);
  return p;
}

}  // namespace

void check_search_setup(const config::Config& config, const std::vector<const config::KernelSpec*>& kernels,
                        const KernelSearchOptions& options) {
  const search::ProposerOptions proposer_options = proposer_options_of(options);
  std::unique_ptr<search::Proposer> first;
  for (const config::KernelSpec* spec : kernels) {
    auto proposer = search::make_proposer(config, *spec, proposer_options);
    if (!first) first = std::move(proposer);
  }
  if (first && options.preflight) first->preflight();
}

search::SearchResult search_kernel(const config::Config& config, const config::KernelSpec& kernel,
                                   const KernelSearchOptions& options) {
  const config::KernelSpec* spec = &kernel;
  // Before any GPU work: a bad proposer setup (no model, no replay file) or a model endpoint that
  // refuses one small request fails fast (UsageError), not after the original was measured.
  auto proposer = search::make_proposer(config, *spec, proposer_options_of(options));
  if (options.preflight) proposer->preflight();
  auto devices = profiler::query_devices();  // NoDeviceError: exit 1
  if (options.device) {
    std::erase_if(devices, [&](const DeviceInfo& d) { return d.index != *options.device; });
    if (devices.empty()) throw profiler::NoDeviceError("no CUDA device with index " + std::to_string(*options.device));
  }
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
    spdlog::info("round {}: {}/{} candidates, best {}: {}", p.round, p.candidates_done, p.candidates_planned,
                 format_speedup(p.best_speedup), p.message);
  };
  request.collect_winner_metrics = true;  // the PR shows the counters before and after
  try {
    return search::run_search(request);
  } catch (const search::OriginalDoesNotCompile& e) {
    throw Error(original_compile_failure(config, *spec, e.log));
  }
}

}  // namespace kb::bot
