// Where a kernel target's __global__ function is launched in its own file, and the knobs of that
// launch: what the tuner may change and a PR may edit for a kernel the harness launches itself
// (config/kernel_target.h). Only a kernel launched from exactly one place in the file has launch
// knobs: with two sites, no one edit is "the" launch that was measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda_source/knobs/literal_knobs.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// One <<<...>>> of the kernel, and the function it is written in ("main", "gelu_forward").
struct KernelLaunchSite {
  std::string function;
  std::string file;
  int line = 0;
  ScannedLaunch launch;
  std::string where() const { return file + ":" + std::to_string(line); }  // "ext.cu:41"
};

// Every launch of `kernel` (unqualified names compared) in the scanned functions, in file order.
std::vector<KernelLaunchSite> kernel_launch_sites(const ScanResult& scan, const std::string& kernel);

struct KernelKnobs {
  std::optional<KernelLaunchSite> site;  // the one launch site, when there is exactly one
  // The launch's block knobs (literal, const local, literal dim3 components) and the kernel's own
  // (#pragma unroll factors, __launch_bounds__ minimum blocks), each changed as a whole.
  std::vector<LiteralKnob> literals;
  // The block as the site writes it, one value per dimension, when every dimension is a knob (or
  // one tied knob is the whole block: `dim3(8, 8)` with the template argument 8).
  std::optional<std::vector<int64_t>> block;
  // The site's template arguments as written ("8", "float, TILE"), when it writes some.
  std::optional<std::string> template_args;
  std::vector<std::string> not_offered;  // why a knob is missing, for a debug log
};

// The knobs of `kernel`'s launch in `text` (the file `file`).
KernelKnobs find_kernel_knobs(const std::string& text, const std::string& kernel, const std::string& file);

}  // namespace kb::cuda_source
