#include "profiler/judge/timing/stopping_criterion.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kb::judge {

void StoppingCriterion::add_sample(double gpu_time_us) {
  samples_.push_back(gpu_time_us);
  total_us_ += gpu_time_us;
  // Welford's update: no cancellation however many samples accumulate.
  const double n = static_cast<double>(samples_.size());
  const double delta = gpu_time_us - mean_;
  mean_ += delta / n;
  m2_ += delta * (gpu_time_us - mean_);
  if (n < 2) return;
  const double noise = mean_ > 0 ? std::sqrt(m2_ / (n - 1)) / mean_ : 0;
  if (std::isfinite(noise)) noise_.push_back(noise);
}

bool StoppingCriterion::noise_is_stable() const {
  const auto window = static_cast<size_t>(params_.stable_window);
  if (window < 2 || noise_.size() < window) return false;
  const double current = noise_.back();
  if (current <= 0) return true;
  double ss = 0;
  for (size_t i = noise_.size() - window; i < noise_.size(); ++i) ss += (noise_[i] - current) * (noise_[i] - current);
  const double spread = std::sqrt(ss / static_cast<double>(window)) / current;
  return spread < params_.stable_tolerance;
}

double StoppingCriterion::median_error() const {
  const size_t n = samples_.size();
  if (n < 2) return HUGE_VAL;
  std::vector<double> v = samples_;
  auto at = [&](double q) {
    const auto k = static_cast<size_t>(std::lround(q * static_cast<double>(n - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  };
  const double median = at(0.5), q1 = at(0.25), q3 = at(0.75);
  if (median <= 0) return HUGE_VAL;
  const double sigma = (q3 - q1) / 1.349;
  return 1.2533 * sigma / std::sqrt(static_cast<double>(n)) / median;
}

bool StoppingCriterion::finished(double wall_s) {
  if (!reason_.empty()) return true;
  const long n = samples();
  const bool enough_time = total_time_s() >= params_.min_time_s;
  if (n >= params_.max_samples) {
    reason_ = "max samples";
  } else if (wall_s >= params_.timeout_s) {
    reason_ = "timeout";
  } else if (n >= params_.min_samples) {
    // The median's error needs no minimum GPU time: it already says how well the samples pin the
    // median down (a fast kernel would otherwise take thousands of samples to fill min_time_s).
    if (enough_time && current_noise() < params_.max_noise) reason_ = "noise target";
    else if (params_.max_error > 0 && median_error() <= params_.max_error) reason_ = "median known";
    else if (enough_time && noise_is_stable()) reason_ = "noise stable";
  }
  return !reason_.empty();
}

}  // namespace kb::judge
