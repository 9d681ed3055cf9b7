// make_harness_job: the [[kernel]] spec with every expression evaluated on every size set.
#include "profiler/evaluate/jobs/harness_job_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/os_random.h"
#include "config/size_expression.h"

namespace kb {
namespace {

// A size or scalar value as the judge parses it: integers exactly, floats round-trip.
std::string format_value(double v, DType dtype, const config::ArgSpec& arg) {
  if (!dtype_is_float(dtype)) {
    if (v != std::floor(v))
      throw config::ExpressionError("argument '" + arg.name + "' (" + to_string(dtype) +
                                    ") evaluates to the non-integer " + std::to_string(v));
    return std::to_string(static_cast<long long>(v));
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// range = [lo, hi] at one size set, checked: an empty range leaves nothing to draw.
std::vector<int64_t> evaluate_range(const config::ArgSpec& arg, const std::map<std::string, int64_t>& sizes) {
  const double lo = config::evaluate_expression(arg.range[0], sizes);
  const double hi = config::evaluate_expression(arg.range[1], sizes);
  if (lo != std::floor(lo) || hi != std::floor(hi))
    throw config::ExpressionError("argument '" + arg.name + "': range [" + arg.range[0] + ", " + arg.range[1] +
                                  "] evaluates to non-integers");
  if (!(lo < hi))
    throw config::ExpressionError("argument '" + arg.name + "': range [" + arg.range[0] + ", " + arg.range[1] +
                                  "] evaluates to the empty [" + std::to_string(static_cast<long long>(lo)) + ", " +
                                  std::to_string(static_cast<long long>(hi)) +
                                  ") (values are drawn from lo <= v < hi)");
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

// The distributions that break the most wrong kernels: a large mean against a small spread
// (cancellation, a lost low-order term) and magnitudes near the type's limits (overflow).
bool is_harsh(const std::string& distribution) { return distribution == "offset" || distribution == "extreme"; }

uint64_t fresh_seed() {
  const uint64_t s = random_u64();
  return s == 0 ? 1 : s;
}

}  // namespace

HarnessJob make_harness_job(const config::Config& config, const config::KernelSpec& spec) {
  HarnessJob job;
  job.kernel = spec.name;
  std::vector<config::SizeSet> sizes = spec.sizes;
  if (sizes.empty()) sizes.push_back({});  // a spec with only literal counts has one implicit size set
  for (const auto& s : sizes) job.size_labels.push_back(s.label());

  std::vector<double> default_bytes(sizes.size(), 0);
  for (const auto& a : spec.args) {
    HarnessArg h;
    h.name = a.name;
    h.role = a.role;
    if (a.role == ArgRole::stream) {
      // The harness supplies the stream: no dtype, counts or values, and no bytes moved.
      job.args.push_back(std::move(h));
      continue;
    }
    h.dtype = a.dtype;
    h.distribution = a.distribution;
    const bool buffer = role_is_buffer(a.role);
    for (size_t i = 0; i < sizes.size(); ++i) {
      const auto& values = sizes[i].values;
      if (a.range.size() == 2) h.ranges.push_back(evaluate_range(a, values));
      if (buffer) {
        int64_t count = config::evaluate_count(a.count, values);
        h.counts.push_back(count);
        // Fewest bytes the kernel must move: inputs read once, outputs written once, inout both.
        double once = static_cast<double>(count) * static_cast<double>(dtype_size(a.dtype));
        // A workspace is not data the work needs: a candidate may not touch it at all.
        if (a.role != ArgRole::workspace) default_bytes[i] += a.role == ArgRole::inout ? 2 * once : once;
      } else {
        h.values.push_back(a.value.empty() ? ""
                                           : format_value(config::evaluate_expression(a.value, values), a.dtype, a));
      }
    }
    if (a.role == ArgRole::output || a.role == ArgRole::inout) {
      config::Tolerance t = config.tolerance_for(spec, a.dtype);
      h.rtol = t.rtol;
      h.atol = t.atol;
      h.error_scale = a.error_scale;
    }
    job.args.push_back(std::move(h));
  }
  if (spec.is_global()) {  // a kernel target's shim launches on the harness's stream, passed last
    HarnessArg stream;
    stream.name = "stream";
    stream.role = ArgRole::stream;
    job.args.push_back(std::move(stream));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    job.flops.push_back(spec.flops.empty() ? 0.0 : config::evaluate_expression(spec.flops, sizes[i].values));
    job.bytes.push_back(spec.bytes.empty() ? default_bytes[i]
                                           : config::evaluate_expression(spec.bytes, sizes[i].values));
  }

  job.trials = config.verify.trials;
  job.distributions = config.verify.distributions;
  job.seed = config.verify.seed != 0 ? static_cast<uint64_t>(config.verify.seed) : fresh_seed();
  job.min_speedup = config.bench.min_speedup;
  job.bench = config.bench.harness();
  return job;
}

int64_t harshest_distribution_start(const std::vector<std::string>& distributions, size_t size_sets) {
  const size_t n = distributions.size();
  if (n == 0) return 0;
  const size_t seen = std::max<size_t>(1, std::min(n, size_sets));
  int64_t best = 0;
  size_t best_count = 0;
  bool best_leads = false;
  for (size_t start = 0; start < n; ++start) {
    size_t count = 0;
    for (size_t s = 0; s < seen; ++s) count += is_harsh(distributions[(start + s) % n]) ? 1 : 0;
    const bool leads = is_harsh(distributions[start]);
    if (count > best_count || (count == best_count && leads && !best_leads)) {
      best = static_cast<int64_t>(start);
      best_count = count;
      best_leads = leads;
    }
  }
  return best;
}

void make_screening_job(HarnessJob& job, const ScreeningBench& bench) {
  job.trials = 1;
  job.strict = false;
  job.distribution_start = harshest_distribution_start(job.distributions, job.size_labels.size());
  job.timed_sizes = 1;
  job.wall_clock_check = false;
  job.bench.max_samples = std::max<int64_t>(1, std::min(job.bench.max_samples, bench.max_samples));
  job.bench.min_samples = std::min(job.bench.min_samples, job.bench.max_samples);
  job.bench.min_time_s = std::min(job.bench.min_time_s, bench.min_time_s);
}

}  // namespace kb
