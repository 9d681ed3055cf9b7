// When to stop taking timing samples, after min_samples of them. With min_time_s of GPU time
// sampled, stop when the relative noise (stdev / mean) is under its target (nvbench's "stdrel").
// Whatever the GPU time, stop when the median is known well enough: its relative standard error,
// 1.2533 * sigma / sqrt(n) with sigma taken robustly from the interquartile range
// (IQR / 1.349), is at most `max_error`. That is what makes a reported median repeat from run to
// run: a kernel whose samples scatter by 2% needs a few hundred samples, a steady one twenty, and
// a 6 us kernel no longer needs thousands of samples to fill min_time_s. Else stop when the noise
// has stopped moving (with min_time_s), at the sample limit or at the wall-time limit.
#pragma once

#include <string>
#include <vector>

namespace kb::judge {

struct StoppingParams {
  long min_samples = 20;
  long max_samples = 2000;
  double min_time_s = 0.5;    // GPU time of the kept samples (for the noise target and stability)
  double max_noise = 0.005;   // relative standard deviation target
  double max_error = 0.0015;  // relative standard error of the median target (0: not used)
  double timeout_s = 20;      // wall time of the whole measurement
  // "Noise stable": over the last `stable_window` noise values (one per sample), the relative
  // spread (stdev / current noise) is below `stable_tolerance`.
  long stable_window = 64;
  double stable_tolerance = 0.01;
};

class StoppingCriterion {
 public:
  explicit StoppingCriterion(StoppingParams params) : params_(params) {}

  void add_sample(double gpu_time_us);
  // Re-evaluates after each sample; `wall_s` is the wall time spent on the measurement so far.
  bool finished(double wall_s);
  // "noise target", "noise stable", "timeout", "max samples"; empty while not finished.
  const std::string& reason() const { return reason_; }
  double current_noise() const { return noise_.empty() ? 0 : noise_.back(); }
  // The median's relative standard error from the samples so far (see above); HUGE_VAL below 2.
  double median_error() const;
  long samples() const { return static_cast<long>(samples_.size()); }
  double total_time_s() const { return total_us_ * 1e-6; }

 private:
  bool noise_is_stable() const;

  StoppingParams params_;
  std::vector<double> samples_;
  std::vector<double> noise_;
  double total_us_ = 0, mean_ = 0, m2_ = 0;
  std::string reason_;
};

}  // namespace kb::judge
