#include "profiler/judge/timing/wall_clock_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/number_format.h"

namespace kb::judge {

size_t wall_clock_calls(double baseline_event_us, double candidate_event_us, size_t bytes_per_call, size_t budget_bytes,
                        size_t max_calls, double target_us) {
  double shorter = baseline_event_us;
  if (candidate_event_us > 0 && (shorter <= 0 || candidate_event_us < shorter)) shorter = candidate_event_us;
  const double call_us = std::max(1.0, shorter);
  const auto by_time = static_cast<size_t>(std::ceil(target_us / call_us));
  const size_t by_memory = budget_bytes / std::max<size_t>(1, bytes_per_call);
  return std::clamp<size_t>(std::min(by_time, by_memory), 1, std::max<size_t>(1, max_calls));
}

double wall_clock_limit_us(const WallClockEvidence& e) {
  const double fixed_per_call = std::min(e.baseline_batch_fixed_us / std::max(1, e.calls),
                                         kBatchJitterShare * e.baseline_wall_us);
  const double original_overhead = std::max({0.0, e.baseline_wall_us - e.baseline_event_us, fixed_per_call});
  const double jitter = std::min(kBatchJitterUs / std::max(1, e.calls), kBatchJitterShare * e.baseline_wall_us);
  return kWallFactor * e.candidate_event_us + original_overhead + kWallAllowanceUs + jitter;
}

double batch_fixed_cost_us(double one_call_batch_us, double batch_us, int calls) {
  if (calls < 2 || one_call_batch_us <= 0 || batch_us <= 0) return 0;
  return std::max(0.0, (calls * one_call_batch_us - batch_us) / (calls - 1));
}

std::string wall_clock_disagreement(const WallClockEvidence& e) {
  if (e.calls <= 0 || e.candidate_wall_us <= 0) return "";
  const double limit = wall_clock_limit_us(e);
  if (e.candidate_wall_us <= limit) return "";
  const double claimed = e.candidate_event_us > 0 ? e.baseline_event_us / e.candidate_event_us : 0;
  const double seen = e.baseline_wall_us / e.candidate_wall_us;
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "the candidate's timing is not what the parent's clock sees at %s: over %d back-to-back calls on "
                "fresh inputs (outputs checked) the judge's clock measured %.3g us per call for the candidate and %.3g "
                "us for the original, but the candidate's timed samples claim %.3g us (the original's %.3g us): a "
                "%s speedup claimed, %s seen; more than %.3g us per call is work outside the timed region "
                "(a side stream, deferred or host-side work)",
                e.size_label.c_str(), e.calls, e.candidate_wall_us, e.baseline_wall_us, e.candidate_event_us,
                e.baseline_event_us, format_speedup(claimed).c_str(), format_speedup(seen).c_str(), limit);
  return buf;
}

ClockRuling wall_clock_ruling(const WallClockEvidence& e) {
  ClockRuling r;
  if (e.candidate_wall_us <= 0 || e.baseline_wall_us <= 0) return r;
  r.speedup = e.baseline_wall_us / e.candidate_wall_us;
  r.significant = r.speedup > 1 + kWallClockSignificance || r.speedup < 1 / (1 + kWallClockSignificance);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "timed by the judge's clock: %.1f us per call against %.1f us in the timed samples; every GPU "
                "activity of the call ran on the caller's stream, so the difference is the launcher's host time, "
                "which a caller pays too (the original: %.1f us by the clock, %.1f us in its samples)",
                e.candidate_wall_us, e.candidate_event_us, e.baseline_wall_us, e.baseline_event_us);
  r.note = buf;
  return r;
}

}  // namespace kb::judge
