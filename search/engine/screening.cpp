#include "search/engine/screening.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/number_format.h"
#include "search/types/search_tree.h"

namespace kb::search {
namespace {

// Standard deviations of the combined noise a screened speedup may lie below another's and
// still be kept as a contender.
constexpr double kNoiseSigmas = 2.0;

}  // namespace

ScreenReading screen_reading(const EvalResult& screening) {
  ScreenReading r;
  if (screening.timings.empty()) return r;
  const SizeTiming& t = screening.timings.front();
  r.speedup = t.speedup;
  r.noise = std::sqrt(t.baseline.noise * t.baseline.noise + t.candidate.noise * t.candidate.noise);
  return r;
}

double screening_margin(const ScreenReading& a, const ScreenReading& b, double floor) {
  const double combined = std::sqrt(a.noise * a.noise + b.noise * b.noise);
  return std::max(floor, 1.0 + kNoiseSigmas * combined);
}

void ScreeningBar::confirm(const std::string& id, const ScreenReading& reading) {
  if (reading.speedup <= 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  confirmed_.push_back({id, reading});
}

std::string ScreeningBar::clearly_slower(const ScreenReading& reading) const {
  if (reading.speedup <= 0) return "";  // no timing to judge by: never dropped on missing evidence
  std::lock_guard<std::mutex> lock(mutex_);
  auto gap = [&](const Bar& bar) {
    return bar.reading.speedup / reading.speedup / screening_margin(reading, bar.reading, floor_);
  };
  auto why = [&](const Bar& bar, const std::string& how) {
    const double margin = screening_margin(reading, bar.reading, floor_);
    return fmt::format("screened {} (noise {:.1f}%), clearly below {}'s screened {} (noise {:.1f}%) "
                       "divided by the margin {:.3f} (= {}){}",
                       format_speedup(reading.speedup), reading.noise * 100, bar.id,
                       format_speedup(bar.reading.speedup), bar.reading.noise * 100, margin,
                       format_speedup(bar.reading.speedup / margin), how);
  };
  // The original against itself is exactly 1x: the candidate's own reading carries the noise.
  const Bar original{"the original", {1.0, 0.0}};
  if (gap(original) > 1) return why(original, "");
  // Clearly below `keep_` accepted candidates: named by the least of those (the `keep_`-th best).
  std::vector<const Bar*> above;
  for (const auto& bar : confirmed_)
    if (gap(bar) > 1) above.push_back(&bar);
  if (above.size() < keep_) return "";
  std::sort(above.begin(), above.end(),
            [](const Bar* a, const Bar* b) { return a->reading.speedup > b->reading.speedup; });
  const std::string how = keep_ == 1 ? ""
                                     : fmt::format(", and below {} accepted candidates: not among the seeds kept",
                                                   above.size());
  return why(*above[keep_ - 1], how);
}

ScreeningEconomy::Means ScreeningEconomy::means() const {
  return Means{screen_s_ / static_cast<double>(screened_), full_s_ / static_cast<double>(full_),
               static_cast<double>(saved_) / static_cast<double>(screened_)};
}

bool ScreeningEconomy::pays() const {
  if (screened_ < warm_up_ || full_ == 0) return true;
  const Means m = means();
  return m.screen_s < m.share_saved * m.full_s;
}

bool ScreeningEconomy::screen_next() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++asked_;
  return pays() || explore_ <= 1 || asked_ % explore_ == 0;
}

void ScreeningEconomy::record_screening(double seconds, bool saved_a_full_evaluation) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++screened_;
  screen_s_ += seconds;
  if (saved_a_full_evaluation) ++saved_;
}

void ScreeningEconomy::record_full(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++full_;
  full_s_ += seconds;
}

std::string ScreeningEconomy::summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (screened_ == 0 || full_ == 0) return "screening every candidate until its cost is measured";
  const Means m = means();
  return fmt::format("a screening took {:.2f} s and spared {:.0f}% of candidates a {:.2f} s full evaluation: {}",
                     m.screen_s, m.share_saved * 100, m.full_s,
                     pays() ? "screening pays"
                            : fmt::format("screening does not pay (1 in {} still screened)", explore_));
}

bool fully_evaluated(const CandidateRecord& r) {
  if (r.from_archive || r.device_index < 0) return false;
  if (!r.screening.ran) return true;
  return r.screening.passed && r.verdict() != Verdict::screened_out;
}

void count_phase_use(const std::vector<CandidateRecord>& tree, bool screening, SearchPhases& p) {
  p.screening = screening;
  for (const auto& r : tree) {
    if (r.id == kBaselineId || r.from_archive) continue;
    p.compile_s += r.compile_s();
    if (r.screening.ran) {
      ++p.screened;
      p.screen_s += r.screening.run_s;
      for (const auto& [phase, s] : r.screening.phase_s) p.job_phase_s[phase] += s;
      for (const auto& [pass, s] : r.screening.pass_s) p.pass_s[pass] += s;
      for (const auto& [part, s] : r.screening.timing_part_s) p.timing_part_s[part] += s;
      if (r.verdict() == Verdict::screened_out) ++p.screened_out;
      else if (!r.screening.passed) ++p.failed_screening;
    }
    if (fully_evaluated(r)) {
      ++p.fully_evaluated;
      p.full_s += r.eval.run_s;
      for (const auto& [phase, s] : r.eval.phase_s) p.job_phase_s[phase] += s;
      for (const auto& [pass, s] : r.eval.verification.pass_s) p.pass_s[pass] += s;
      for (const auto& [part, s] : r.eval.timing_part_s) p.timing_part_s[part] += s;
    }
  }
}

std::string phases_summary(const SearchPhases& p) {
  const std::string time = fmt::format("compile {:.0f} s, screening {:.0f} s, full verification and timing {:.0f} s "
                                       "(summed over candidates); measuring the original {:.1f} s, proposing {:.1f} s, "
                                       "GPUs waiting for a candidate {:.1f} s, the winner's counters {:.1f} s",
                                       p.compile_s, p.screen_s, p.full_s, p.original_s, p.proposing_s, p.gpu_wait_s,
                                       p.winner_metrics_s);
  if (!p.screening) return fmt::format("evaluation: {} fully evaluated, no screening; {}", p.fully_evaluated, time);
  return fmt::format("screening: {} screened, {} screened out ({:.0f}%), {} failed it, {} fully evaluated; {}",
                     p.screened, p.screened_out,
                     p.screened ? 100.0 * static_cast<double>(p.screened_out) / static_cast<double>(p.screened) : 0.0,
                     p.failed_screening, p.fully_evaluated, time);
}

}  // namespace kb::search
