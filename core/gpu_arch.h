// A GPU architecture as nvcc names it: a compute capability (sm_80, compute_90) and, since CUDA 12,
// an optional suffix for code that runs on that architecture only (sm_90a) or on its family
// (sm_100f). The project's target architectures ([project] target_archs, its nvcc flags, its CMake
// settings) and the judge's own are values of this one type, so that "which of them can this GPU
// run" is one comparison (profiler/evaluate/archs/arch_plan.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kb {

struct GpuArch {
  int cc = 0;       // the compute capability as nvcc writes it: 80, 86, 90, 100, 121
  char suffix = 0;  // 0, 'a' (architecture-specific features) or 'f' (family-specific features)

  int major() const { return cc / 10; }
  int minor() const { return cc % 10; }
  std::string sm() const;       // "sm_90a": a real architecture (SASS)
  std::string compute() const;  // "compute_90a": its virtual architecture (PTX), what __CUDA_ARCH__ follows
  bool operator==(const GpuArch&) const = default;
  // Older first: 86 < 90 < 90a < 100.
  bool operator<(const GpuArch& other) const { return std::tie(cc, suffix) < std::tie(other.cc, other.suffix); }
};

// How a variant is built for a target architecture other than the judge's own compile's.
struct ArchBuild {
  GpuArch arch;
  // PTX of its virtual architecture only (compute_80), which the driver's JIT compiles for the GPU
  // it runs on, so that a newer GPU runs the code of the older architecture; else its SASS (sm_100).
  bool ptx_only = false;
  // nvcc's flags for it: -gencode arch=compute_80,code=compute_80 (or code=sm_100).
  std::vector<std::string> nvcc_flags() const;
};

// "sm_80", "compute_90a", "80", "90a", "8.6", "10.0", "sm_100f"; nullopt for anything else
// ("sm_8", "native", "lto_80", "90x").
std::optional<GpuArch> parse_gpu_arch(std::string_view text);

}  // namespace kb
