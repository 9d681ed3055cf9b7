#include "profiler/judge/outputs/reference_check.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {

namespace {

// One pass over the elements as `Bits` (the element's size), each read as a double by `to_double`:
// the element loop is inlined per type (a third faster on 16M floats than reading each element
// through the codec's switch).
template <class Bits, class ToDouble>
ReferenceCounts scan_elements(DType t, const void* data, size_t count, bool skip_poison, ToDouble to_double) {
  Bits poison_bits{};
  fill_poison(t, &poison_bits, 1);
  const auto* bytes = static_cast<const unsigned char*>(data);
  auto element = [&](size_t i) {
    Bits b;
    std::memcpy(&b, bytes + i * sizeof(Bits), sizeof b);
    return b;
  };
  ReferenceCounts s;
  s.count = count;
  s.first = to_double(element(0));
  const bool first_is_nan = std::isnan(s.first);
  for (size_t i = 0; i < count; ++i) {
    const Bits b = element(i);
    if (skip_poison && b == poison_bits) {
      ++s.poison;
      continue;
    }
    const double v = to_double(b);
    s.finite += std::isfinite(v) ? 1 : 0;
    s.differ += v == s.first || (first_is_nan && std::isnan(v)) ? 0 : 1;
  }
  return s;
}

template <class T, class Bits>
double as_double(Bits b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return static_cast<double>(v);
}

ReferenceCounts scan_reference(DType t, const void* data, size_t count, bool skip_poison) {
  switch (t) {
    case DType::float64: return scan_elements<uint64_t>(t, data, count, skip_poison, as_double<double, uint64_t>);
    case DType::float32: return scan_elements<uint32_t>(t, data, count, skip_poison, as_double<float, uint32_t>);
    case DType::float16:
      return scan_elements<uint16_t>(t, data, count, skip_poison,
                                     [](uint16_t b) { return static_cast<double>(half_to_float(b)); });
    case DType::bfloat16:
      return scan_elements<uint16_t>(t, data, count, skip_poison,
                                     [](uint16_t b) { return static_cast<double>(bfloat16_to_float(b)); });
    case DType::int64: return scan_elements<uint64_t>(t, data, count, skip_poison, as_double<int64_t, uint64_t>);
    case DType::int32: return scan_elements<uint32_t>(t, data, count, skip_poison, as_double<int32_t, uint32_t>);
    case DType::uint32: return scan_elements<uint32_t>(t, data, count, skip_poison, as_double<uint32_t, uint32_t>);
    case DType::int8: return scan_elements<uint8_t>(t, data, count, skip_poison, as_double<int8_t, uint8_t>);
    case DType::uint8: return scan_elements<uint8_t>(t, data, count, skip_poison, as_double<uint8_t, uint8_t>);
  }
  return {};
}

}  // namespace

ReferenceCounts count_reference(DType t, ArgRole role, const void* data, size_t count) {
  if (count == 0) return {};
  return scan_reference(t, data, count, role == ArgRole::output);
}

ReferenceFinding check_reference(DType t, ArgRole role, const std::string& name, const std::string& size_label,
                                 const void* data, size_t count) {
  return reference_finding(t, name, size_label, count_reference(t, role, data, count));
}

ReferenceFinding reference_finding(DType t, const std::string& name, const std::string& size_label,
                                   const ReferenceCounts& c) {
  ReferenceFinding f;
  const size_t count = c.count, poison = c.poison, finite = c.finite;
  if (count == 0) return f;
  const bool constant = c.differ == 0;
  const double first = c.first;
  const std::string where = "the original's output " + name + " at size " + size_label;
  if (poison == count) {
    f.error = where + " holds the judge's poison in all " + std::to_string(count) +
              " elements: the original never writes it, so it proves nothing about a candidate (a buffer the "
              "launcher only reads is an \"input\"; one it reads and updates is an \"inout\")";
    return f;
  }
  if (dtype_is_float(t) && finite == 0) {
    f.error = where + " holds no finite value in the " + std::to_string(count - poison) +
              " elements it wrote (NaN and Inf only): a reference that proves nothing about a candidate's arithmetic "
              "(check its inputs' distribution and range)";
    return f;
  }
  if (constant && count - poison >= 16)
    f.warning = where + " is " + format_number(first) + " at every element it wrote (" +
                std::to_string(count - poison) + "): any candidate that writes that value matches it";
  return f;
}

}  // namespace kb::judge
