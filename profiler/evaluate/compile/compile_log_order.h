// A failed compile's log as a reader needs it: nvcc -Xptxas -v prints an info block for every
// kernel it assembles, and a link error (the one line that matters: "multiple definition of ...")
// ends up under a hundred lines of them. Also used on a successful compile's log, where it
// changes nothing a reader relies on.
#pragma once

#include <string>

namespace kb::profiler {

// `log` with every "ptxas info" line moved after all other lines (each group keeps its order),
// so errors, warnings and the linker's lines come first.
std::string ptxas_info_last(const std::string& log);

}  // namespace kb::profiler
