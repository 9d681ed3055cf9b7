#include "core/speedup_rule.h"

#include <cmath>

#include "core/number_format.h"

namespace kb {
namespace {

bool significantly_faster(const SizeTiming& t) { return t.significant && t.speedup > 1; }
bool significantly_slower(const SizeTiming& t) { return t.significant && t.speedup < 1; }

}  // namespace

double geometric_mean_speedup(const std::vector<SizeTiming>& timings) {
  if (timings.empty()) return 0;
  double log_sum = 0;
  for (const auto& t : timings) log_sum += std::log(t.speedup > 0 ? t.speedup : 1e-9);
  return std::exp(log_sum / static_cast<double>(timings.size()));
}

bool significantly_faster_somewhere(const std::vector<SizeTiming>& timings) {
  for (const auto& t : timings)
    if (significantly_faster(t)) return true;
  return false;
}

SpeedupDecision decide_speedup(const std::vector<SizeTiming>& timings, double min_speedup) {
  SpeedupDecision d;
  d.speedup = geometric_mean_speedup(timings);
  d.min_speedup = min_speedup;
  d.sizes = timings.size();
  for (const auto& t : timings) {
    if (significantly_faster(t)) ++d.faster_sizes;
    if (significantly_slower(t) && d.slower_at.empty()) d.slower_at = t.size_label;
  }
  if (!d.slower_at.empty()) d.outcome = SpeedupOutcome::slower;
  else if (!reaches_min_speedup(d.speedup, min_speedup)) d.outcome = SpeedupOutcome::under_minimum;
  else if (d.faster_sizes == 0) d.outcome = SpeedupOutcome::within_noise;
  else d.outcome = SpeedupOutcome::faster;
  return d;
}

std::string SpeedupDecision::reason() const {
  const std::string g = format_speedup(speedup);
  switch (outcome) {
    case SpeedupOutcome::slower:
      return "correct, but significantly slower than the original at " + slower_at + " (geometric-mean speedup " + g +
             ")";
    case SpeedupOutcome::under_minimum:
      return "correct, geometric-mean speedup " + g + " is under the required " + format_speedup(min_speedup);
    case SpeedupOutcome::within_noise:
      return "correct, geometric-mean speedup " + g + " but no size is faster beyond the noise";
    case SpeedupOutcome::faster:
      return "correct and faster: geometric-mean speedup " + g + ", significant at " + std::to_string(faster_sizes) +
             " of " + std::to_string(sizes) + " sizes";
  }
  return "";
}

std::string why_not_publishable(const EvalResult& eval, double min_speedup) {
  if (!verdict_is_correct(eval.verdict))
    return std::string(to_string(eval.verdict)) + ": " + (eval.reason.empty() ? "no reason given" : eval.reason);
  if (!eval.verification.passed)
    return "its verification did not pass" +
           (eval.verification.failure.empty() ? "" : ": " + eval.verification.failure);
  if (eval.verdict != Verdict::accepted || !significantly_faster_somewhere(eval.timings))
    return "correct, but not faster beyond the noise (" + format_speedup(eval.speedup) + ")";
  if (!reaches_min_speedup(eval.speedup, min_speedup))
    return format_speedup(eval.speedup) + " is under [bench].min_speedup " + format_speedup(min_speedup);
  return "";
}

}  // namespace kb
