// The speedup rule: whether a verified candidate's timings make it a win. Decided here once for
// both sides of the process boundary: the judge reports it in its result, kernelbot decides it
// again on the result it receives (evaluate/verdict/evaluation_outcome.h) and checks it before a PR
// (bot/). A candidate is accepted when the geometric-mean speedup reaches min_speedup, at least
// one size is significantly faster and none is significantly slower. Whether one size's ratio is
// significant is a measurement, the judge's (SizeTiming::significant); this is a pure function of
// the measurements, with no CUDA.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result_types.h"

namespace kb {

// Which part of the rule decided, checked in this order.
enum class SpeedupOutcome {
  slower,         // significantly slower than the original at some size
  under_minimum,  // the geometric mean is under min_speedup
  within_noise,   // no size is significantly faster
  faster,         // accepted
};

struct SpeedupDecision {
  SpeedupOutcome outcome = SpeedupOutcome::within_noise;
  double speedup = 0;       // the geometric mean of the sizes' ratios
  double min_speedup = 0;   // what it was held to
  size_t faster_sizes = 0;  // sizes significantly faster
  size_t sizes = 0;
  std::string slower_at;  // the first size significantly slower; empty when none is
  bool accepted() const { return outcome == SpeedupOutcome::faster; }
  // The verdict's sentence: "correct and faster: geometric-mean speedup 1.234x, significant at 2
  // of 3 sizes", "correct, geometric-mean speedup 1.020x is under the required 1.050x", ...
  std::string reason() const;
};

// The geometric mean of the sizes' speedups (a size with no ratio counts as 1e-9); 0 for none.
double geometric_mean_speedup(const std::vector<SizeTiming>& timings);

SpeedupDecision decide_speedup(const std::vector<SizeTiming>& timings, double min_speedup);

// Significantly faster than the original at one size at least.
bool significantly_faster_somewhere(const std::vector<SizeTiming>& timings);

// A speedup reaches [bench].min_speedup.
constexpr bool reaches_min_speedup(double speedup, double min_speedup) { return speedup >= min_speedup; }

// Whether a measured candidate may be published as a PR: empty when it may, else why not, in a
// reviewer's words. Publishable: its verdict accepted, its verification passed, significantly
// faster at one size at least and its speedup at least `min_speedup`. The search's winner, the
// PR's re-verification and the PR itself are held to this one rule (a PR is the one output that
// must never overstate, so it is checked again on the result kernelbot received).
std::string why_not_publishable(const EvalResult& eval, double min_speedup);
inline bool publishable(const EvalResult& eval, double min_speedup) {
  return why_not_publishable(eval, min_speedup).empty();
}

}  // namespace kb
