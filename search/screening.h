// Screening, then confirmation (successive halving, as autotuners do): every candidate gets a
// cheap screening (one verification trial per size set, a short timing at the main size; see
// EvalOptions::screening) and only the contenders get the full evaluation. A candidate is
// dropped as screened_out when its screened speedup is clearly below that of the original or
// of a candidate the full evaluation has already accepted: below the other's divided by a
// margin that covers the noise of both short timings. Only a full evaluation accepts.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result_types.h"
#include "search/search_types.h"

namespace kb::search {

// What one screening measured at the main size.
struct ScreenReading {
  double speedup = 0;
  double noise = 0;  // relative noise of the ratio: sqrt(baseline noise^2 + candidate noise^2)
};

// The reading of a screening's result (its first timing); speedup 0 when it has none.
ScreenReading screen_reading(const EvalResult& screening);

// How far below `b` the speedup of `a` must lie to be clearly slower: two standard deviations
// of both readings' noise (of single samples, not of the median: the screening takes few
// samples and drifts between the two runs do not average away), never less than `floor`.
double screening_margin(const ScreenReading& a, const ScreenReading& b, double floor);

// The bars a screened candidate is held to: the original (1x, exact by definition) and the
// candidates whose full evaluation accepted them. Against accepted ones a candidate is dropped
// only when it is clearly below `keep` of them ([search].seeds_kept): the next round's seeds are
// the best accepted candidates, so one that could still be a seed is confirmed, and screening
// never narrows what the search builds on (a crossover needs two seeds). Thread-safe.
class ScreeningBar {
 public:
  explicit ScreeningBar(double margin_floor, size_t keep = 1) : floor_(margin_floor), keep_(keep < 1 ? 1 : keep) {}

  // `id`'s full evaluation accepted it: its screening reading becomes a bar.
  void confirm(const std::string& id, const ScreenReading& reading);
  // Empty when `reading` is within the margin of every bar; otherwise why it is clearly slower
  // (both speedups, the margin and the noise behind it).
  std::string clearly_slower(const ScreenReading& reading) const;

 private:
  struct Bar {
    std::string id;
    ScreenReading reading;
  };
  double floor_;
  size_t keep_;
  mutable std::mutex mutex_;
  std::vector<Bar> confirmed_;
};

// A candidate this run evaluated went through the full evaluation (not dropped at screening).
bool fully_evaluated(const CandidateRecord& r);

// Counts and time per phase over the candidates this run measured (archive reuses excluded).
SearchPhases phase_use(const std::vector<CandidateRecord>& tree, bool screening);

// One line for the run's summary: "screening: 24 screened, 15 screened out (62%), ...".
std::string phases_summary(const SearchPhases& phases);

}  // namespace kb::search
