#include "profiler/judge/inputs/dtype_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kb::judge {
namespace {

// Poison payloads: quiet NaNs whose low bits spell 0xA5, never produced by hardware arithmetic.
constexpr uint64_t kPoisonF64 = 0x7FF8A5A5A5A5A5A5ull;
constexpr uint32_t kPoisonF32 = 0x7FC5A5A5u;
constexpr uint16_t kPoisonF16 = 0x7EA5u;
constexpr uint16_t kPoisonBF16 = 0x7FA5u;
constexpr uint8_t kPoisonByte = 0xA5u;

template <typename T>
T read(const void* data, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void write(void* data, size_t i, T v) {
  std::memcpy(static_cast<char*>(data) + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
T clamp_to(double v) {
  if (std::isnan(v)) return T{0};
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (man << 13);  // inf / NaN, payload kept
  } else if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while ((man & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
    }
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u) {  // inf or NaN
    if (absx == 0x7F800000u) return sign | 0x7C00u;
    return sign | 0x7E00u | static_cast<uint16_t>((absx >> 13) & 0x1FFu);
  }
  if (absx >= 0x477FF000u) return sign | 0x7C00u;  // rounds to >= 65520: overflow to inf
  if (absx < 0x33000001u) return sign;             // below half the smallest subnormal
  int exp = static_cast<int>(absx >> 23) - 127 + 15;
  uint32_t man = (absx & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 13;
  if (exp <= 0) {  // subnormal half
    shift = static_cast<uint32_t>(14 - exp);
    exp = 0;
  }
  uint32_t half_man = man >> shift;
  const uint32_t rem = man & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (half_man & 1u))) ++half_man;  // round to nearest even
  uint32_t result;
  if (exp == 0) {
    result = half_man;  // may carry into the exponent field: that is the right answer
  } else {
    result = (static_cast<uint32_t>(exp) << 10) + (half_man & 0x3FFu) + ((half_man >> 10) - 1) * 0x400u;
  }
  return static_cast<uint16_t>(sign | result);
}

float bfloat16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // keep NaN a NaN
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

double load_double(DType t, const void* data, size_t i) {
  switch (t) {
    case DType::float64: return read<double>(data, i);
    case DType::float32: return read<float>(data, i);
    case DType::float16: return half_to_float(read<uint16_t>(data, i));
    case DType::bfloat16: return bfloat16_to_float(read<uint16_t>(data, i));
    case DType::int64: return static_cast<double>(read<int64_t>(data, i));
    case DType::int32: return read<int32_t>(data, i);
    case DType::uint32: return read<uint32_t>(data, i);
    case DType::int8: return read<int8_t>(data, i);
    case DType::uint8: return read<uint8_t>(data, i);
  }
  return 0;
}

int64_t load_int(DType t, const void* data, size_t i) {
  switch (t) {
    case DType::int64: return read<int64_t>(data, i);
    case DType::int32: return read<int32_t>(data, i);
    case DType::uint32: return read<uint32_t>(data, i);
    case DType::int8: return read<int8_t>(data, i);
    case DType::uint8: return read<uint8_t>(data, i);
    default: return static_cast<int64_t>(load_double(t, data, i));
  }
}

void store_double(DType t, void* data, size_t i, double v) {
  switch (t) {
    case DType::float64: write<double>(data, i, v); break;
    case DType::float32: write<float>(data, i, static_cast<float>(v)); break;
    case DType::float16: write<uint16_t>(data, i, float_to_half(static_cast<float>(v))); break;
    case DType::bfloat16: write<uint16_t>(data, i, float_to_bfloat16(static_cast<float>(v))); break;
    case DType::int64: write<int64_t>(data, i, clamp_to<int64_t>(v)); break;
    case DType::int32: write<int32_t>(data, i, clamp_to<int32_t>(v)); break;
    case DType::uint32: write<uint32_t>(data, i, clamp_to<uint32_t>(v)); break;
    case DType::int8: write<int8_t>(data, i, clamp_to<int8_t>(v)); break;
    case DType::uint8: write<uint8_t>(data, i, clamp_to<uint8_t>(v)); break;
  }
}

void fill_poison(DType t, void* data, size_t count) {
  switch (t) {
    case DType::float64:
      for (size_t i = 0; i < count; ++i) write<uint64_t>(data, i, kPoisonF64);
      break;
    case DType::float32:
      for (size_t i = 0; i < count; ++i) write<uint32_t>(data, i, kPoisonF32);
      break;
    case DType::float16:
      for (size_t i = 0; i < count; ++i) write<uint16_t>(data, i, kPoisonF16);
      break;
    case DType::bfloat16:
      for (size_t i = 0; i < count; ++i) write<uint16_t>(data, i, kPoisonBF16);
      break;
    default: std::memset(data, kPoisonByte, count * dtype_size(t)); break;
  }
}

bool is_poison(DType t, const void* data, size_t i) {
  switch (t) {
    case DType::float64: return read<uint64_t>(data, i) == kPoisonF64;
    case DType::float32: return read<uint32_t>(data, i) == kPoisonF32;
    case DType::float16: return read<uint16_t>(data, i) == kPoisonF16;
    case DType::bfloat16: return read<uint16_t>(data, i) == kPoisonBF16;
    default: {
      const auto* p = static_cast<const uint8_t*>(data) + i * dtype_size(t);
      return std::all_of(p, p + dtype_size(t), [](uint8_t b) { return b == kPoisonByte; });
    }
  }
}

}  // namespace kb::judge
