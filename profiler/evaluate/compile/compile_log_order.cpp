#include "profiler/evaluate/compile/compile_log_order.h"

#include <sstream>

namespace kb::profiler {

std::string ptxas_info_last(const std::string& log) {
  std::string first, last;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) (line.starts_with("ptxas info") ? last : first) += line + "\n";
  std::string out = first + last;
  if (!log.empty() && log.back() != '\n' && !out.empty()) out.pop_back();  // no newline the log did not have
  return out;
}

}  // namespace kb::profiler
