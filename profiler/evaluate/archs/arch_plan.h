// What is done for each of the project's target architectures (target_archs.h) on the judge's
// GPU. `__CUDA_ARCH__` follows the virtual architecture a unit is compiled for, so a branch for
// sm_80 is exercised by compiling for compute_80; a GPU runs PTX of any older virtual architecture
// through its driver's JIT compiler, so an H200 (sm_90) runs a compute_80 build with the sm_80
// branch taken. The rules, given the architecture the judge compiles for (J, -arch=J) and the
// GPU's compute capability (G):
// - a target equal to J: the evaluation itself (no further compile);
// - a target without a suffix and older than G: compiled as its PTX only (-gencode
//   arch=compute_80,code=compute_80), nothing else in the library, so the GPU cannot pick other
//   code, and verified on this GPU;
// - a target of G's own compute capability other than J (sm_90a when J is sm_90, or sm_90 when J
//   is sm_90a): compiled as its SASS (code=sm_90a) and verified on this GPU;
// - a target newer than G, or with architecture- or family-specific features ('a', 'f') of
//   another compute capability than G's: such code cannot run here (PTX is not backward
//   compatible, 'a' code runs on its exact compute capability only, and kernelbot runs 'f' code
//   only on its own): compiled as its SASS (so ptxas checks it too), not run.
// "native" is G itself.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_arch.h"
#include "profiler/evaluate/archs/target_archs.h"

namespace kb::profiler {

enum class ArchStepKind {
  judge,         // the evaluation's own compile: verified by it
  run,           // compiled for the target and verified on this GPU
  compile_only,  // compiled for the target, not run
};

struct ArchStep {
  GpuArch target;
  ArchStepKind kind = ArchStepKind::judge;
  ArchBuild build;  // how it is compiled (not for `judge`)
  // For the report: "compute_80 PTX, run on this GPU through the driver's JIT compiler".
  std::string how;
  std::string why_not_run;  // compile_only: "newer than this GPU (compute capability 9.0)"
};

// One step per target architecture, in ascending order; `judge_arch` is the judge's compile's
// (Evaluator::compile_arch), `gpu` this GPU's compute capability (no suffix).
std::vector<ArchStep> plan_arch_steps(const TargetArchs& targets, const GpuArch& judge_arch, const GpuArch& gpu);

}  // namespace kb::profiler
