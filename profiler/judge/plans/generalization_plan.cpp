#include "profiler/judge/plans/generalization_plan.h"

#include <algorithm>

namespace kb::judge {
namespace {

// splitmix64's finalizer: neighbouring inputs give unrelated seeds.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

bool is_generalization_size(const DecodedJob& job, size_t s) {
  return s >= job.size_count() && s < job.all_size_count();
}

GeneralizationCall generalization_call(const DecodedJob& job, size_t s) {
  GeneralizationCall c;
  // Far from the main trials' seeds (job seed + t * sizes + s) and different per set.
  c.seed = mix(job.raw.seed ^ mix(0x67656e6572616c00ULL + s));
  if (c.seed == 0) c.seed = 1;
  c.distribution = job.distributions[static_cast<size_t>(c.seed % job.distributions.size())];
  return c;
}

std::string describe_generalization_size(const DecodedJob& job, size_t s) {
  return "generalization size " + job.raw.size_labels.at(s) + " (not one of the configured sizes)";
}

std::string describe_generalization_call(const DecodedJob& job, size_t s, const GeneralizationCall& c) {
  return "generalization size " + job.raw.size_labels.at(s) + " (not one of the configured sizes; distribution " +
         to_string(c.distribution) + ", seed " + std::to_string(c.seed) + ")";
}

size_t generalization_bytes(const DecodedJob& job, size_t s, bool scaled) {
  size_t total = 0;
  for (const auto& a : job.args) {
    if (!a.is_buffer()) continue;
    const size_t bytes = static_cast<size_t>(a.counts.at(s)) * dtype_size(a.type);
    total += 2 * bytes;                            // the original's and the candidate's
    if (a.role == ArgRole::input) total += bytes;  // the pristine copy
    if (scaled && a.is_written() && a.error_scale == ErrorScale::abs_inputs) total += bytes;  // the error scale
  }
  return total;
}

bool fits_free_memory(size_t needed, size_t free_bytes) {
  const size_t reserve = std::max<size_t>(free_bytes / 4, size_t{256} << 20);
  return free_bytes > reserve && needed <= free_bytes - reserve;
}

}  // namespace kb::judge
