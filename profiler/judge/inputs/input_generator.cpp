#include "profiler/judge/inputs/input_generator.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "core/measurement_defaults.h"

namespace kb::judge {

std::optional<Distribution> parse_distribution(const std::string& name) {
  for (int i = 0; i < kDistributionCount; ++i) {
    const auto d = static_cast<Distribution>(i);
    if (name == to_string(d)) return d;
  }
  return std::nullopt;
}

// The names are the config's too (core/measurement_defaults.h), in this enum's order.
static_assert(kDistributionNames.size() == kDistributionCount, "every Distribution has a name");

const char* to_string(Distribution d) {
  const int i = static_cast<int>(d);
  return i >= 0 && i < kDistributionCount ? kDistributionNames[static_cast<size_t>(i)] : "unknown";
}

namespace {

// Runs `fill_part(begin, end)` over [0, count) on up to one thread per core, in 1M-element chunks
// at least (every element is a pure function of its index, so the split changes no value).
template <typename Fill>
void fill_in_parallel(size_t count, const Fill& fill_part) {
  constexpr size_t kChunk = size_t{1} << 20;
  const size_t workers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()),
                                          (count + kChunk - 1) / kChunk);
  if (workers <= 1) {
    fill_part(0, count);
    return;
  }
  std::vector<std::thread> threads;
  const size_t per = (count + workers - 1) / workers;
  for (size_t w = 0; w < workers; ++w) {
    const size_t begin = w * per, end = std::min(count, begin + per);
    if (begin < end) threads.emplace_back(fill_part, begin, end);
  }
  for (auto& th : threads) th.join();
}

}  // namespace

void fill_random(DType t, Distribution d, uint64_t seed, uint64_t stream, void* data, size_t count) {
  const bool is_float = dtype_is_float(t);
  fill_in_parallel(count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const double v = element_value(t, d, seed, stream, i);
      store_double(t, data, i, v);
      // Rounding to a narrow float type can only shrink a value to zero below its subnormal
      // range, which our magnitudes never reach; keep the guarantee explicit anyway.
      if (is_float && load_double(t, data, i) == 0.0) store_double(t, data, i, v < 0 ? -0.01 : 0.01);
    }
  });
}

void fill_range(DType t, int64_t lo, int64_t hi, uint64_t seed, uint64_t stream, void* data, size_t count) {
  fill_in_parallel(count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) store_double(t, data, i, range_value(lo, hi, seed, stream, i));
  });
}

}  // namespace kb::judge
