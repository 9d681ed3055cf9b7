// When a search stops for lack of progress. The method's best kernels often come in rounds 4-5,
// after a flat round or two, so one round without gain is not enough: the search stops after
// [search].patience rounds in a row that each improved the best correct speedup by less than
// [search].min_round_gain. A round lost to protocol errors (the model could not be asked, or
// its replies could not be read) measured nothing about the ideas, so it counts neither as a
// gain nor as a round without one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb::search {

// What one round did to the best correct speedup, and whether it was lost.
struct RoundReport {
  int64_t round = 0;
  double best_before = 1.0;
  double best_after = 1.0;
  std::string lost;  // why the round was lost to protocol errors; "" when it was not
};

// Counts rounds without gain and says when the search should stop.
class RoundPatience {
 public:
  RoundPatience(double min_round_gain, int64_t patience) : min_gain_(min_round_gain), patience_(patience) {}

  // The stop reason when this round ends the search ("no gain in rounds 2 to 3 ..."), else "".
  std::string after_round(const RoundReport& report);

  // Rounds without gain in a row so far.
  int64_t without_gain() const { return static_cast<int64_t>(flat_.size()); }
  // "round 3 lost to protocol errors (...)" for each lost round, in order.
  const std::vector<std::string>& lost_rounds() const { return lost_; }

 private:
  double min_gain_;
  int64_t patience_;
  std::vector<RoundReport> flat_;  // the current run of rounds without gain
  std::vector<std::string> lost_;
};

}  // namespace kb::search
