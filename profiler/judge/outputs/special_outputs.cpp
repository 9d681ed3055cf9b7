#include "profiler/judge/outputs/special_outputs.h"

#include <cmath>

namespace kb::judge {

SpecialOutputs original_outputs_defined(DType t, const std::string& name, const void* first, const void* second,
                                        size_t count, Tolerance tol, const void* scale) {
  SpecialOutputs out;
  for (size_t i = 0; i < count; ++i) {
    if (is_poison(t, first, i)) continue;
    const double v = load_double(t, first, i);
    if (std::isnan(v)) ++out.nan;
    else if (std::isinf(v)) ++out.inf;
    else ++out.finite;
  }
  const OutputComparison again = compare_output(t, first, second, count, tol, scale);
  if (!again.passed()) {
    out.defined = false;
    out.why = "the original's output " + name + " differs between two calls on the same inputs (" +
              std::to_string(again.mismatches) + " elements, first at index " + std::to_string(again.first.index) +
              ": " + format_number(again.first.expected) + " then " + format_number(again.first.got) + ")";
    return out;
  }
  if (dtype_is_float(t) && out.finite == 0 && out.nan + out.inf > 0) {
    out.defined = false;
    out.why = "the original's output " + name + " holds no finite value (" + std::to_string(out.nan) + " NaN, " +
              std::to_string(out.inf) + " Inf)";
  }
  return out;
}

}  // namespace kb::judge
