#include "profiler/judge/plans/special_values_plan.h"

#include <algorithm>

namespace kb::judge {

std::vector<SpecialValuesCase> plan_special_values(size_t size_count, const std::vector<size_t>& inputs) {
  std::vector<SpecialValuesCase> cases;
  if (size_count == 0 || inputs.empty()) return cases;
  const size_t n = std::max(size_count, inputs.size());
  cases.reserve(n);
  for (size_t k = 0; k < n; ++k) cases.push_back({k % size_count, inputs[k % inputs.size()]});
  return cases;
}

std::string describe_special_values_cases(const std::vector<SpecialValuesCase>& cases,
                                          const std::vector<std::string>& size_labels,
                                          const std::vector<std::string>& arg_names) {
  std::string text;
  for (const auto& c : cases) {
    if (!text.empty()) text += "; ";
    text += arg_names.at(c.input) + " at " + size_labels.at(c.size);
  }
  return text;
}

}  // namespace kb::judge
