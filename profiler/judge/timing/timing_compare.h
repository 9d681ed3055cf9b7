// Judging two timing distributions: is a speedup real, how close is a kernel to its roofline
// floor. Pure functions of the measured statistics. Which verdict the sizes' ratios support is
// the speedup rule, core/speedup_rule.h, shared with kernelbot.
#pragma once

namespace kb::judge {

// The part of a timing distribution the judgement needs (microseconds; noise = stdev / mean).
struct TimingSummary {
  double median = 0, q1 = 0, q3 = 0, noise = 0;
};

// One distribution's relative spread as the significance test reads it: the smaller of
// stdev / mean and the interquartile range as a standard deviation (IQR / 1.349, over the
// median). A few outliers (a preempted sample) inflate the first and not the second; and the
// median-error stop ends sampling as soon as the middle is tight, often at min_samples, where one
// outlier among twenty is not diluted by thousands of samples as it was under the old stops.
double significance_spread(const TimingSummary& t);

// A ratio of medians is significant when both
//   |ratio - 1| > 2 * sqrt(spread_a^2 + spread_b^2)   (beyond twice the combined relative spread), and
//   the interquartile ranges do not overlap (the middle halves of the two distributions are apart).
// The first guards against noisy kernels, the second against a shifted but overlapping
// distribution; both are conservative for medians of many samples, on purpose.
bool speedup_is_significant(const TimingSummary& baseline, const TimingSummary& candidate);

// The roofline floor in microseconds: the larger of bytes / copy bandwidth and flops / FP32
// rate. 0 when neither ceiling (or neither count) is known.
double roofline_floor_us(double bytes, double flops, double copy_bandwidth_gbps, double fp32_tflops);
// floor / median * 100, 0 when either is unknown.
double percent_of_floor(double floor_us, double median_us);

// Launches per sample for a kernel whose single-call median is `median_us`: 1 at or above
// `graph_below_us`, otherwise enough for a sample of about 50 us, at most 200 (more queued
// launches than that could fill the launch queue behind the blocking kernel).
int launches_per_sample(double median_us, double graph_below_us);

// True when a sample's SM clock was more than `max_sag` (a fraction) below the maximum.
bool clock_sagged(double clock_mhz, double max_clock_mhz, double max_sag);

}  // namespace kb::judge
