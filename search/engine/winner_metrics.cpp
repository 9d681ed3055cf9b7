#include "search/engine/winner_metrics.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <string>

namespace kb::search {

void collect_winner_metrics(const config::KernelSpec& spec, Evaluator& evaluator, const CompiledVariant& baseline,
                            SearchResult& result) {
  const auto* best = result.best();
  if (!best || best->verdict() != Verdict::accepted) return;
  // The original was counted when the search measured it, by the same kind of job at the same size
  // set: counting it again would double the run for the same numbers.
  const KernelMetrics& original = result.baseline_profile.baseline_metrics;
  const bool original_counted = original.status == "ok";
  spdlog::info("{}: collecting hardware counters of the winner {}{} for the PR", spec.name, best->id,
               original_counted ? " (the original's from its measurement)" : " and the original");
  EvalOptions options;
  // The timings stay those of the search, which verified the winner; this run only counts (the PR's
  // text is verified and timed again before any PR, bot/change/reverify.h).
  options.time = false;
  options.verify = false;
  options.collect_metrics = true;
  options.count_original = !original_counted;
  EvalResult metrics;
  try {
    CompiledVariant winner = evaluator.compile(spec, best->variant);
    metrics = evaluator.evaluate(spec, baseline, winner, options);
  } catch (const std::exception& e) {
    metrics.verdict = Verdict::infra_error;
    metrics.reason = e.what();
  }
  CandidateRecord* record = nullptr;
  for (auto& c : result.tree)
    if (c.id == best->id) record = &c;
  if (!verdict_is_correct(metrics.verdict)) {
    // Not a silent success: the PR says the counters are missing and why.
    spdlog::warn("{}: the metrics run of the winner ended {}: {}", spec.name, to_string(metrics.verdict),
                 metrics.reason);
    if (record->eval.candidate_metrics.status != "ok")
      record->eval.candidate_metrics.status = std::string("metrics run ended ") + to_string(metrics.verdict) + ": " +
                                              metrics.reason;
    return;
  }
  record->eval.baseline_metrics = original_counted ? original : metrics.baseline_metrics;
  record->eval.candidate_metrics = metrics.candidate_metrics;
}

}  // namespace kb::search
