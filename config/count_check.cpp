#include "config/count_check.h"

#include <limits>

#include "config/config.h"
#include "config/size_expression.h"

namespace kb::config {

std::string count_problem(const std::string& count, DType dtype, const std::map<std::string, int64_t>& sizes) {
  if (count.empty() || count == todo_marker) return "";
  try {
    for (const auto& name : expression_names(count))
      if (!sizes.count(name)) return "";  // the loader names the undefined size
  } catch (const ExpressionError&) {
    return "";  // the loader reports the syntax error
  }
  int64_t elements = 0;
  try {
    elements = evaluate_count(count, sizes);
  } catch (const ExpressionError& e) {
    // Negative, fractional, a 64-bit overflow or a division by zero along the way.
    return e.what();
  }
  if (elements == 0) return "\"" + count + "\" is 0 elements: a buffer needs at least one";
  const auto width = static_cast<int64_t>(dtype_size(dtype));
  if (elements > std::numeric_limits<int64_t>::max() / width)
    return "\"" + count + "\" is " + std::to_string(elements) + " elements, whose bytes overflow 64 bits";
  return "";
}

}  // namespace kb::config
