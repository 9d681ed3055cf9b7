#include "profiler/harness/input_generator.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

namespace kb::harness {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t element_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream + 0x632BE59BD9B4E019ull)) + index);
}

double to_unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Two independent uniforms for element `index` (the second from a shifted index space).
double unit2(uint64_t seed, uint64_t stream, uint64_t index) {
  return to_unit(element_bits(seed, stream ^ 0xA5A5A5A5A5A5A5A5ull, index));
}

double away_from_zero(double x, double min_magnitude) {
  if (std::fabs(x) >= min_magnitude) return x;
  return std::signbit(x) ? -min_magnitude : min_magnitude;
}

double float_value(ElemType t, Distribution d, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random(seed, stream, i);
  switch (d) {
    case Distribution::uniform: return 0.01 + 0.99 * u;
    case Distribution::normal: {
      const double u2 = unit2(seed, stream, i);
      const double z = std::sqrt(-2.0 * std::log1p(-u)) * std::cos(6.283185307179586 * u2);
      return away_from_zero(z, 1e-3);
    }
    case Distribution::large: {
      const double lo = t == ElemType::float16 ? 2.0 : 3.0;  // log10 of the smallest magnitude
      const double hi = t == ElemType::float16 ? 3.0 : 6.0;
      return std::pow(10.0, lo + (hi - lo) * u);
    }
    case Distribution::mixed_sign: {
      const double magnitude = 0.01 + 9.99 * unit2(seed, stream, i);
      return u < 0.5 ? -magnitude : magnitude;
    }
  }
  return 1.0;
}

bool is_unsigned(ElemType t) { return t == ElemType::uint32 || t == ElemType::uint8; }

double type_max(ElemType t) {
  switch (t) {
    case ElemType::int8: return 127;
    case ElemType::uint8: return 255;
    case ElemType::int32: return 2147483647.0;
    case ElemType::uint32: return 4294967295.0;
    default: return 9.0e18;
  }
}

double int_value(ElemType t, Distribution d, uint64_t seed, uint64_t stream, uint64_t i) {
  const double u = unit_random(seed, stream, i);
  switch (d) {
    case Distribution::uniform: return 1 + std::floor(100 * u);
    case Distribution::normal: {
      const double u2 = unit2(seed, stream, i);
      double z = std::round(20.0 * std::sqrt(-2.0 * std::log1p(-u)) * std::cos(6.283185307179586 * u2));
      if (is_unsigned(t)) z = std::fabs(z);
      z = std::clamp(z, is_unsigned(t) ? 1.0 : -127.0, 127.0);
      return z == 0 ? 1 : z;
    }
    case Distribution::large: {
      const double hi = std::min(1e6, type_max(t));
      const double lo = std::min(1000.0, std::floor(hi / 2));
      return lo + std::floor((hi - lo + 1) * u);
    }
    case Distribution::mixed_sign: {
      const double magnitude = 1 + std::floor(100 * unit2(seed, stream, i));
      if (is_unsigned(t)) return magnitude;
      return u < 0.5 ? -magnitude : magnitude;
    }
  }
  return 1;
}

}  // namespace

std::optional<Distribution> parse_distribution(const std::string& name) {
  if (name == "uniform") return Distribution::uniform;
  if (name == "normal") return Distribution::normal;
  if (name == "large") return Distribution::large;
  if (name == "mixed_sign") return Distribution::mixed_sign;
  return std::nullopt;
}

const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::uniform: return "uniform";
    case Distribution::normal: return "normal";
    case Distribution::large: return "large";
    case Distribution::mixed_sign: return "mixed_sign";
  }
  return "unknown";
}

double unit_random(uint64_t seed, uint64_t stream, uint64_t index) {
  return to_unit(element_bits(seed, stream, index));
}

void fill_random(ElemType t, Distribution d, uint64_t seed, uint64_t stream, void* data, size_t count) {
  const bool is_float = elem_is_float(t);
  auto fill_range = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const double v = is_float ? float_value(t, d, seed, stream, i) : int_value(t, d, seed, stream, i);
      store_double(t, data, i, v);
      // Rounding to a narrow float type can only shrink a value to zero below its subnormal
      // range, which our magnitudes never reach; keep the guarantee explicit anyway.
      if (is_float && load_double(t, data, i) == 0.0) store_double(t, data, i, v < 0 ? -0.01 : 0.01);
    }
  };
  constexpr size_t kChunk = size_t{1} << 20;
  const size_t workers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), (count + kChunk - 1) / kChunk);
  if (workers <= 1) {
    fill_range(0, count);
    return;
  }
  std::vector<std::thread> threads;
  const size_t per = (count + workers - 1) / workers;
  for (size_t w = 0; w < workers; ++w) {
    const size_t begin = w * per, end = std::min(count, begin + per);
    if (begin < end) threads.emplace_back(fill_range, begin, end);
  }
  for (auto& th : threads) th.join();
}

double random_scalar(ElemType t, Distribution d, uint64_t seed, uint64_t stream) {
  const double u = unit_random(seed, stream, 0);
  const double u2 = unit2(seed, stream, 0);
  if (!elem_is_float(t)) return 1 + std::floor(16 * u);
  const double magnitude = 0.5 + 1.5 * u;
  const bool negative = (d == Distribution::normal || d == Distribution::mixed_sign) && u2 < 0.5;
  return negative ? -magnitude : magnitude;
}

}  // namespace kb::harness
