// Where a judge's job spends its time: one running phase at a time, its seconds added to a map
// (EvalResult::phase_s) when the next phase begins or the job ends. The search and
// bench/search_throughput sum these over candidates to show what an evaluation costs.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace kb::judge {

class PhaseTimes {
 public:
  explicit PhaseTimes(std::map<std::string, double>& into) : into_(into) {}
  ~PhaseTimes() { end(); }
  PhaseTimes(const PhaseTimes&) = delete;
  PhaseTimes& operator=(const PhaseTimes&) = delete;

  // Ends the running phase (if any) and starts `name`; a name seen before accumulates.
  void begin(const std::string& name) {
    end();
    current_ = name;
    since_ = std::chrono::steady_clock::now();
  }

  void end() {
    if (current_.empty()) return;
    into_[current_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
    current_.clear();
  }

  const std::string& current() const { return current_; }

 private:
  std::map<std::string, double>& into_;
  std::string current_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace kb::judge
