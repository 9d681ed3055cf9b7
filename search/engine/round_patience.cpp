#include "search/engine/round_patience.h"

#include <fmt/format.h>

#include "core/number_format.h"

namespace kb::search {

std::string RoundPatience::after_round(const RoundReport& report) {
  // >= so that min_round_gain = 0 makes every round a gain: the search runs every round.
  if (report.best_after >= report.best_before * (1.0 + min_gain_)) {
    flat_.clear();
    return "";
  }
  if (!report.lost.empty()) {
    lost_.push_back(fmt::format("round {} lost to protocol errors ({})", report.round, report.lost));
    return "";
  }
  flat_.push_back(report);
  if (patience_ <= 0 || without_gain() < patience_) return "";
  const RoundReport& first = flat_.front();
  if (flat_.size() == 1)
    return fmt::format("no gain in round {}: best {} after {} (min_round_gain {:g})", report.round,
                       format_speedup(report.best_after), format_speedup(report.best_before), min_gain_);
  // A lost round inside the run is not one of them, so the rounds are listed, not a range.
  std::string rounds;
  for (size_t i = 0; i < flat_.size(); ++i)
    rounds += (i == 0 ? "" : i + 1 == flat_.size() ? " and " : ", ") + std::to_string(flat_[i].round);
  return fmt::format("no gain in rounds {} (patience {}): best {}, {} before round {} (min_round_gain {:g})", rounds,
                     patience_, format_speedup(report.best_after), format_speedup(first.best_before), first.round,
                     min_gain_);
}

}  // namespace kb::search
