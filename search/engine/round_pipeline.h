// Runs one round's candidates: compiles them on a pool of threads ([search].compile_jobs, all
// cores by default) as they arrive from the feed and, as each compiles, verifies and times it on
// the first free GPU (one worker thread per Evaluator). A candidate that does not compile may be repaired once (or
// [llm].repair_attempts times); the repair is a child candidate of the failed one.
// With screening (search/engine/screening.h) each GPU worker screens every compiled candidate first
// and fully evaluates the contenders when nothing is left to screen, best screened speedup
// first, holding each against the bar again just before its full evaluation.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/engine/candidate_cost.h"
#include "search/engine/candidate_feed.h"
#include "search/engine/screening.h"
#include "search/types/search_types.h"

namespace kb::search {

// How a round runs: compile threads, repairs per failed compile, what the evaluator measures.
struct RoundSettings {
  int64_t compile_jobs = 1;
  int64_t repair_attempts = 0;
  EvalOptions eval_options;  // the full evaluation
  // Screening first when set (the engine's bar, kept across rounds); null: every candidate
  // gets the full evaluation at once, as without screening.
  ScreeningBar* screening_bar = nullptr;
  // With a screening bar: screen only while it pays (the engine's, kept across rounds); null:
  // screen every candidate.
  ScreeningEconomy* screening_economy = nullptr;
  // When set, the seconds GPU workers waited for a candidate to evaluate (its compile, or the
  // proposer's reply), summed over the workers, are added to it.
  double* gpu_wait_s = nullptr;
  // When set, every screening's and full evaluation's seconds are recorded in it, and it says what
  // the next one is expected to cost (RoundHooks::may_start). The engine's, kept across rounds.
  CandidateCost* cost = nullptr;
};

// What the round pipeline asks of the engine while it works.
struct RoundHooks {
  // Takes a candidate slot from the budget; false: start nothing more (the candidate is dropped).
  std::function<bool()> reserve;
  // A fixed variant for a candidate that did not compile, or nullopt. May be empty.
  std::function<std::optional<Variant>(const CandidateRecord& failed)> repair;
  // Each finished candidate (evaluated, or failed to compile), in completion order. Calls are serialized.
  std::function<void(const CandidateRecord&)> on_finished;
  // Whether GPU work expected to take `seconds` (from RoundSettings::cost: a screening and the full
  // evaluation it may lead to, or a full evaluation) may start: the wall-time budget. False: the
  // compiled candidate is left unevaluated (out of the records) and `on_unevaluated` is told.
  // May be empty (always).
  std::function<bool(double seconds)> may_start;
  std::function<void(const CandidateRecord&, double seconds)> on_unevaluated;
};

// `evaluators[i]` measures on `device_indices[i]`. Returns once the feed is closed and every
// candidate in it is finished: the finished candidates in the order they were added, each repair
// right after the candidate it fixes; dropped ones, and those left unevaluated for the wall time,
// are left out.
std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            CandidateFeed& feed, const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices, const RoundSettings& settings,
                                            const RoundHooks& hooks);

// The same for candidates known up front.
std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            const std::vector<CandidateRecord>& candidates,
                                            const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices, const RoundSettings& settings,
                                            const RoundHooks& hooks);

// The candidate's record filled in from its evaluation.
void apply_evaluation(CandidateRecord& record, const CompiledVariant& compiled, EvalResult result);

}  // namespace kb::search
