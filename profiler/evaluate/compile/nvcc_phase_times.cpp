#include "profiler/evaluate/compile/nvcc_phase_times.h"

#include <cstdlib>
#include <vector>

#include "common/text.h"

namespace kb::profiler {
namespace {

std::string phase_group(const std::string& phase) {
  if (phase.starts_with("gcc (preprocessing") || phase.starts_with("clang (preprocessing")) return "host preprocessing";
  if (phase == "cudafe++") return "cudafe++ (host/device split)";
  if (phase == "cicc") return "cicc (device front end)";
  if (phase == "gcc (compiling)" || phase == "clang (compiling)") return "host compiler";
  if (phase == "gcc (linking)" || phase == "clang (linking)") return "host link";
  if (phase == "nvcc (driver)") return "nvcc driver";
  return phase;  // ptxas, fatbinary, nvlink, and any phase a later nvcc adds
}

}  // namespace

std::map<std::string, double> nvcc_phase_seconds(std::string_view report) {
  std::map<std::string, double> seconds;
  size_t pos = 0;
  while (pos < report.size()) {
    size_t end = report.find('\n', pos);
    if (end == std::string_view::npos) end = report.size();
    const std::string_view line = report.substr(pos, end - pos);
    pos = end + 1;
    // source , phase , inputs , output , arch , tool , metric , unit
    std::vector<std::string> fields = split(line, ',');
    for (auto& field : fields) field = trim(field);
    if (fields.size() < 8 || fields[1].empty() || fields[7] != "ms") continue;  // the header's unit is "unit"
    char* parsed_end = nullptr;
    const double ms = std::strtod(fields[6].c_str(), &parsed_end);
    if (parsed_end == fields[6].c_str() || ms < 0) continue;
    seconds[phase_group(fields[1])] += ms / 1000.0;
  }
  return seconds;
}

}  // namespace kb::profiler
