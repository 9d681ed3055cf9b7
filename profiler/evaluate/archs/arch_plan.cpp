#include "profiler/evaluate/archs/arch_plan.h"

#include <algorithm>

namespace kb::profiler {
namespace {

std::string capability(const GpuArch& a) { return std::to_string(a.major()) + "." + std::to_string(a.minor()); }

ArchStep step_for(const GpuArch& target, const GpuArch& judge_arch, const GpuArch& gpu) {
  ArchStep step;
  step.target = target;
  if (target == judge_arch) {
    step.kind = ArchStepKind::judge;
    step.how = "the judge's own build (-arch=" + judge_arch.sm() + "), verified and timed above";
    return step;
  }
  if (target.suffix == 0 && target.cc < gpu.cc) {
    step.kind = ArchStepKind::run;
    step.build = {target, true};
    step.how = target.compute() + " PTX only, run on this GPU (" + capability(gpu) +
               ") through the driver's JIT compiler";
    return step;
  }
  if (target.cc == gpu.cc) {
    step.kind = ArchStepKind::run;
    step.build = {target, false};
    step.how = target.sm() + " SASS, run on this GPU";
    return step;
  }
  step.kind = ArchStepKind::compile_only;
  step.build = {target, false};
  step.how = target.sm() + " SASS";
  if (target.cc > gpu.cc) step.why_not_run = "newer than this GPU (compute capability " + capability(gpu) + ")";
  else
    step.why_not_run = std::string(target.suffix == 'a' ? "architecture" : "family") + "-specific code (" +
                       target.sm() + ") runs only on a GPU of compute capability " + capability(target) +
                       ", and this one is " + capability(gpu);
  return step;
}

}  // namespace

std::vector<ArchStep> plan_arch_steps(const TargetArchs& targets, const GpuArch& judge_arch, const GpuArch& gpu) {
  std::vector<GpuArch> archs = targets.archs;
  if (targets.native && std::find(archs.begin(), archs.end(), GpuArch{gpu.cc, 0}) == archs.end())
    archs.push_back(GpuArch{gpu.cc, 0});
  std::sort(archs.begin(), archs.end());
  std::vector<ArchStep> steps;
  steps.reserve(archs.size());
  for (const auto& a : archs) steps.push_back(step_for(a, judge_arch, gpu));
  return steps;
}

}  // namespace kb::profiler
