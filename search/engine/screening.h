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
#include "search/types/search_types.h"

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

// Whether a screening saves time, from what this search measured (thread-safe). A screening costs
// its own run; it saves a full evaluation when the candidate is screened out. So it pays while
// (mean screening seconds) < (share saved) x (mean full-evaluation seconds). Candidates that fail
// their screening are left out of the account: their full evaluation would fail verification
// about as fast (the round pipeline does not record them). When full
// evaluations are cheap (fast kernels, the median-error stop) screening every candidate costs
// more than it saves; when they are long (slow kernels, strict settings) it saves most of them.
// Until `warm_up` screenings and one full evaluation are measured, every candidate is screened;
// while screening does not pay, every `explore`-th candidate is still screened, so the estimate
// follows the search (later rounds screen out more as the bar rises).
class ScreeningEconomy {
 public:
  explicit ScreeningEconomy(int64_t warm_up = 4, int64_t explore = 4) : warm_up_(warm_up), explore_(explore) {}

  // Whether the next candidate should be screened (counts the candidates it was asked about).
  bool screen_next();
  void record_screening(double seconds, bool saved_a_full_evaluation);
  void record_full(double seconds);
  // The reason for the current choice, for the log ("screening 0.7 s < 64% of 1.5 s").
  std::string summary() const;

 private:
  // With the mutex held. means(): per screening, per full evaluation, share of screenings that
  // spared one (needs one of each).
  struct Means {
    double screen_s, full_s, share_saved;
  };
  Means means() const;
  bool pays() const;

  int64_t warm_up_, explore_;
  mutable std::mutex mutex_;
  int64_t asked_ = 0, screened_ = 0, saved_ = 0, full_ = 0;
  double screen_s_ = 0, full_s_ = 0;
};

// A candidate this run evaluated went through the full evaluation (not dropped at screening).
bool fully_evaluated(const CandidateRecord& r);

// Adds the counts and time per phase over the candidates this run measured (archive reuses
// excluded) to `phases`; the search's own time there (original_s, ...) is the engine's to keep.
void count_phase_use(const std::vector<CandidateRecord>& tree, bool screening, SearchPhases& phases);

// One line for the run's summary: "screening: 24 screened, 15 screened out (62%), ...".
std::string phases_summary(const SearchPhases& phases);

}  // namespace kb::search
