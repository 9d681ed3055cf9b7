#include "profiler/judge/outputs/tolerance_warning.h"

#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {

std::string tolerance_warning(const OutputError& o) {
  if (o.elements == 0 || o.atol <= 0 || o.max_reference > o.atol) return "";
  return o.name + ": the reference's largest magnitude " + format_number(o.max_reference) +
         (o.max_reference < o.atol ? " is below atol " : " equals atol ") + format_number(o.atol) +
         "; this output's check passes any value within atol of zero: lower atol in [[kernel]].tolerance";
}

}  // namespace kb::judge
