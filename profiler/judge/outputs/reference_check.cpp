#include "profiler/judge/outputs/reference_check.h"

#include <cmath>

#include "profiler/judge/inputs/dtype_codec.h"
#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {

ReferenceCounts count_reference(DType t, ArgRole role, const void* data, size_t count) {
  // Element by element through the codec: the rule's own reading, which the judge's GPU count
  // (launch_reference_counts) is held to; no hot path runs it.
  ReferenceCounts c;
  c.count = count;
  if (count == 0) return c;
  c.first = load_double(t, data, 0);
  for (size_t i = 0; i < count; ++i) {
    if (role == ArgRole::output && is_poison(t, data, i)) {
      ++c.poison;
      continue;
    }
    const double v = load_double(t, data, i);
    if (std::isfinite(v)) ++c.finite;
    if (v != c.first && !(std::isnan(v) && std::isnan(c.first))) ++c.differ;
  }
  return c;
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
