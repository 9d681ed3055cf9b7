// Where a compile's time goes: nvcc's own report of each phase it ran (`nvcc --time FILE`, a CSV
// line per phase: host preprocessing, cudafe++, cicc, ptxas, fatbinary, the host compiler, nvlink,
// the host link). The variant compiler asks for it in every build folder, so each cached variant
// keeps the report of the compile that made it (kNvccTimeFile beside its library).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kb::profiler {

inline constexpr const char* kNvccTimeFile = "nvcc-time.csv";

// Seconds per phase, summed over every nvcc run the report holds (nvcc appends one block a run),
// under names that say which tool ran: "host preprocessing", "cudafe++ (host/device split)",
// "cicc (device front end)", "ptxas", "fatbinary", "nvlink", "host compiler", "host link",
// "nvcc driver"; a phase nvcc names otherwise keeps its own name. Header and malformed lines are
// skipped.
std::map<std::string, double> nvcc_phase_seconds(std::string_view report);

}  // namespace kb::profiler
