// The reasoning-branching search for one kernel: each round, ideas in natural language, each
// idea branched into code variants, every variant compiled, verified and timed, the best kept
// as the seeds of the next round. `kernelbot search` and `kernelbot run` both call this.
#pragma once

#include <functional>
#include <string>

#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/types/search_types.h"

namespace kb::search {

class Proposer;
class Archive;

// Progress as the search goes (round, candidates done, best so far), for logs and the terminal.
struct SearchProgress {
  int64_t round = 0;
  int64_t candidates_done = 0;
  int64_t candidates_planned = 0;
  double best_speedup = 1.0;
  std::string message;
};

struct SearchRequest {
  const config::Config* config = nullptr;
  const config::KernelSpec* spec = nullptr;
  Evaluator* evaluator = nullptr;  // one per GPU; the engine may be given several
  std::vector<Evaluator*> more_evaluators;
  Proposer* proposer = nullptr;
  Archive* archive = nullptr;  // may be null: no reuse across runs
  std::function<void(const SearchProgress&)> on_progress;
  // The accepted winner's hardware counters, before and after, in one more untimed run
  // (search/engine/winner_metrics.h): what `kernelbot search` and `run` show in the PR.
  bool collect_winner_metrics = false;
  // Monotonic seconds for the wall-time budget; empty: the steady clock. Tests inject their own,
  // so a budget of minutes is tested without waiting for it.
  std::function<double()> clock = {};
};

// Runs the search to its end (rounds done, no gain, or a budget). Candidates' failures are
// recorded as verdicts; throws only when the search itself cannot run (the baseline does not
// compile or fails on its own inputs).
SearchResult run_search(const SearchRequest& request);

}  // namespace kb::search
