#include "profiler/judge/buffers/arg_inputs.h"

namespace kb::judge {

Distribution input_distribution(const DecodedArg& a, Distribution trial) {
  return a.has_distribution ? a.distribution : trial;
}

void fill_input(const DecodedArg& a, size_t size_index, Distribution trial, uint64_t seed, uint64_t stream, void* data,
                size_t count) {
  if (a.has_range()) {
    const InputRange& r = a.ranges.at(size_index);
    fill_range(a.type, r.lo, r.hi, seed, stream, data, count);
    return;
  }
  fill_random(a.type, input_distribution(a, trial), seed, stream, data, count);
}

}  // namespace kb::judge
