// What happens to each target architecture on the judge's GPU (profiler/evaluate/archs/arch_plan.h):
// on an H200 (compute capability 9.0, the judge compiling -arch=sm_90), older architectures run
// as their PTX through the JIT, sm_90 is the evaluation itself, sm_90a runs as its own SASS, and
// newer or other-specific ones are compiled only, each with the flags of its compile.
#include "profiler/evaluate/archs/arch_plan.h"

#include <gtest/gtest.h>

namespace kb::profiler {
namespace {

TargetArchs plan_targets(std::initializer_list<int> ccs, std::vector<GpuArch> more = {}, bool native = false) {
  TargetArchs t;
  for (int cc : ccs) t.archs.push_back(GpuArch{cc, 0});
  t.archs.insert(t.archs.end(), more.begin(), more.end());
  std::sort(t.archs.begin(), t.archs.end());
  t.native = native;
  t.source = "test";
  return t;
}

const GpuArch kPlanSm90{90, 0};
const GpuArch kPlanSm90a{90, 'a'};

TEST(ArchPlan, OnAnH200EveryKindOfTarget) {
  const auto steps = plan_arch_steps(plan_targets({75, 80, 86, 90, 100, 120}, {{90, 'a'}, {100, 'a'}, {100, 'f'}}),
                                     kPlanSm90, kPlanSm90);
  ASSERT_EQ(steps.size(), 9u);
  auto at = [&](const std::string& sm) -> const ArchStep& {
    for (const auto& s : steps)
      if (s.target.sm() == sm) return s;
    throw std::runtime_error("no step for " + sm);
  };
  for (const char* older : {"sm_75", "sm_80", "sm_86"}) {
    const ArchStep& s = at(older);
    EXPECT_EQ(s.kind, ArchStepKind::run) << older;
    EXPECT_TRUE(s.build.ptx_only) << older;
    EXPECT_EQ(s.build.nvcc_flags()[1], "arch=" + s.target.compute() + ",code=" + s.target.compute()) << older;
    EXPECT_NE(s.how.find("PTX only, run on this GPU (9.0) through the driver's JIT compiler"), std::string::npos)
        << s.how;
  }
  EXPECT_EQ(at("sm_90").kind, ArchStepKind::judge);
  EXPECT_NE(at("sm_90").how.find("-arch=sm_90"), std::string::npos);
  // sm_90a runs on this very GPU, as its own SASS (its __CUDA_ARCH_FEAT_SM90_ALL branch taken).
  EXPECT_EQ(at("sm_90a").kind, ArchStepKind::run);
  EXPECT_EQ(at("sm_90a").build.nvcc_flags()[1], "arch=compute_90a,code=sm_90a");
  for (const char* newer : {"sm_100", "sm_120", "sm_100a", "sm_100f"}) {
    const ArchStep& s = at(newer);
    EXPECT_EQ(s.kind, ArchStepKind::compile_only) << newer;
    EXPECT_FALSE(s.build.ptx_only) << newer;  // SASS: ptxas checks it too
    EXPECT_NE(s.why_not_run.find("newer than this GPU (compute capability 9.0)"), std::string::npos) << s.why_not_run;
  }
  EXPECT_EQ(at("sm_120").build.nvcc_flags()[1], "arch=compute_120,code=sm_120");
  // Ascending order.
  EXPECT_EQ(steps.front().target.sm(), "sm_75");
  EXPECT_EQ(steps.back().target.sm(), "sm_120");
}

TEST(ArchPlan, ArchitectureSpecificCodeOfAnotherGpuIsCompiledOnly) {
  // On a B200 (10.0): sm_90a code runs on compute capability 9.0 only.
  const auto steps = plan_arch_steps(plan_targets({90}, {{90, 'a'}}), GpuArch{100, 0}, GpuArch{100, 0});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].target.sm(), "sm_90");
  EXPECT_EQ(steps[0].kind, ArchStepKind::run);
  EXPECT_TRUE(steps[0].build.ptx_only);
  EXPECT_EQ(steps[1].target.sm(), "sm_90a");
  EXPECT_EQ(steps[1].kind, ArchStepKind::compile_only);
  EXPECT_EQ(steps[1].why_not_run,
            "architecture-specific code (sm_90a) runs only on a GPU of compute capability 9.0, and this one is "
            "10.0");
}

TEST(ArchPlan, TheJudgesOwnArchitectureMayCarryASuffix) {
  // [project] cuda_arch = "90a": sm_90a is the evaluation, plain sm_90 runs as its SASS.
  const auto steps = plan_arch_steps(plan_targets({80, 90}, {{90, 'a'}}), kPlanSm90a, kPlanSm90);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].kind, ArchStepKind::run);
  EXPECT_EQ(steps[1].target.sm(), "sm_90");
  EXPECT_EQ(steps[1].kind, ArchStepKind::run);
  EXPECT_EQ(steps[1].build.nvcc_flags()[1], "arch=compute_90,code=sm_90");
  EXPECT_EQ(steps[2].kind, ArchStepKind::judge);
}

TEST(ArchPlan, NativeIsThisGpu) {
  auto steps = plan_arch_steps(plan_targets({}, {}, true), kPlanSm90, kPlanSm90);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].target.sm(), "sm_90");
  EXPECT_EQ(steps[0].kind, ArchStepKind::judge);
  steps = plan_arch_steps(plan_targets({90}, {}, true), kPlanSm90, kPlanSm90);
  EXPECT_EQ(steps.size(), 1u);  // not twice
  EXPECT_TRUE(plan_arch_steps(plan_targets({}), kPlanSm90, kPlanSm90).empty());
}

}  // namespace
}  // namespace kb::profiler
