// Every architecture the project builds (profiler/evaluate/arch_verification.h), on a scripted
// evaluator: what is compiled and verified for each target architecture on a 9.0 GPU, how a
// failure for one becomes the verdict naming it, and when an architecture is skipped (the
// original does not compile or cannot be verified for it) rather than held against the candidate.
#include "profiler/evaluate/arch_verification.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace kb::profiler {
namespace {

// A 9.0 GPU whose builds and verdicts per architecture a test scripts. A library's path says what
// it was built from and for ("candidate@compute_80"), so evaluate() knows which architecture runs.
class ScriptedArchEvaluator : public Evaluator {
 public:
  DeviceInfo device() override {
    DeviceInfo d;
    d.name = "Scripted 9.0 GPU";
    d.cc_major = 9;
    d.cc_minor = 0;
    return d;
  }
  CompiledVariant compile(const config::KernelSpec&, const Variant& variant) override {
    CompiledVariant c;
    c.ok = true;
    c.library_path = variant.label + "@judge";
    return c;
  }
  CompiledVariant compile_for_arch(const config::KernelSpec&, const Variant& variant, const ArchBuild& build) override {
    const std::string target = build.ptx_only ? build.arch.compute() : build.arch.sm();
    const std::string key = variant.label + "@" + target;
    builds.push_back(key);
    CompiledVariant c;
    if (auto it = compile_errors.find(key); it != compile_errors.end()) {
      c.log = it->second;
      c.machine_failure = machine_failures.count(key) > 0;
      return c;
    }
    c.ok = true;
    c.library_path = key;
    return c;
  }
  EvalResult evaluate(const config::KernelSpec&, const CompiledVariant& baseline, const CompiledVariant& candidate,
                      const EvalOptions& options) override {
    asked.push_back(options);
    const std::string target = candidate.library_path.substr(candidate.library_path.find('@') + 1);
    EXPECT_EQ(baseline.library_path, "original@" + target) << "the original, built the same way, is the reference";
    EvalResult r;
    r.verdict = Verdict::not_faster;
    r.reason = "verified only, not timed";
    r.verification.passed = true;
    r.verification.trials = 5;
    r.verification.sizes = {"n=1024", "n=4096"};
    r.verification.passes = {"state independence", "special values"};
    if (auto it = outcomes.find(target); it != outcomes.end()) {
      r.verdict = it->second.first;
      r.reason = it->second.second;
      r.verification.passed = verdict_is_correct(r.verdict);
      if (!r.verification.passed) r.verification.failure = it->second.second;
    }
    if (target == "compute_80") r.verification.skipped_checks = skipped_at_80;
    return r;
  }

  std::map<std::string, std::string> compile_errors;                // "candidate@sm_100" -> its log
  std::set<std::string> machine_failures;                           // of those, the machine's
  std::map<std::string, std::pair<Verdict, std::string>> outcomes;  // "compute_80" -> verdict, reason
  std::vector<std::string> skipped_at_80;
  std::vector<std::string> builds;
  std::vector<EvalOptions> asked;
};

TargetArchs scripted_targets(std::initializer_list<int> ccs) {
  TargetArchs t;
  for (int cc : ccs) t.archs.push_back(GpuArch{cc, 0});
  t.source = "build/compile_commands.json, the entry of src/saxpy.cu";
  t.evidence = {"-gencode arch=compute_80,code=sm_80"};
  return t;
}

EvalResult accepted_result() {
  EvalResult r;
  r.verdict = Verdict::accepted;
  r.reason = "1.5x faster";
  r.speedup = 1.5;
  r.verification.passed = true;
  r.verification.skipped_checks = {"alignment offset 4 bytes: the original faults (misaligned address)"};
  return r;
}

const Variant kArchOriginal{"original text", {}, {}, "original"};
const Variant kArchCandidate{"candidate text", {}, {}, "candidate"};
const config::KernelSpec kArchSpec = [] {
  config::KernelSpec s;
  s.name = "saxpy";
  return s;
}();

TEST(ArchVerification, OlderArchitecturesRunNewerOnesCompileTheJudgesIsTheEvaluation) {
  ScriptedArchEvaluator gpu;
  gpu.skipped_at_80 = {"alignment offset 4 bytes: the original faults (misaligned address)",
                       "special values at size n=1024: the original's output holds no finite value"};
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90, 100}), r);
  EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
  EXPECT_TRUE(r.verification.passed);
  EXPECT_EQ(r.verification.archs_source,
            "build/compile_commands.json, the entry of src/saxpy.cu: -gencode arch=compute_80,code=sm_80");
  EXPECT_EQ(gpu.builds, (std::vector<std::string>{"original@compute_80", "candidate@compute_80", "original@sm_100",
                                                  "candidate@sm_100"}));
  ASSERT_EQ(gpu.asked.size(), 1u);  // one verification, of sm_80: the judge's was the evaluation itself
  EXPECT_FALSE(gpu.asked[0].time);
  EXPECT_FALSE(gpu.asked[0].sanitize);
  const auto& archs = r.verification.archs;
  ASSERT_EQ(archs.size(), 3u);
  EXPECT_EQ(archs[0].arch, "sm_80");
  EXPECT_EQ(archs[0].outcome, ArchOutcome::verified);
  EXPECT_EQ(archs[0].how, "compute_80 PTX only, run on this GPU (9.0) through the driver's JIT compiler");
  EXPECT_EQ(archs[0].detail, "5 trials at 2 size sets, 2 further checks passed");
  EXPECT_EQ(archs[1].arch, "sm_90");
  EXPECT_EQ(archs[1].outcome, ArchOutcome::verified);
  EXPECT_EQ(archs[1].how, "the judge's own build (-arch=sm_90), verified and timed above");
  EXPECT_EQ(archs[2].arch, "sm_100");
  EXPECT_EQ(archs[2].outcome, ArchOutcome::compiled);
  EXPECT_EQ(archs[2].detail, "newer than this GPU (compute capability 9.0)");
  // What sm_80's verification skipped joins the report once, marked with it.
  EXPECT_EQ(r.verification.skipped_checks,
            (std::vector<std::string>{
                "alignment offset 4 bytes: the original faults (misaligned address)",
                "special values at size n=1024: the original's output holds no finite value (for sm_80)"}));
  EXPECT_GE(r.phase_s["target architectures"], 0);
}

TEST(ArchVerification, AWrongBranchForAnOlderArchitectureIsTheVerdictNamingIt) {
  ScriptedArchEvaluator gpu;
  gpu.outcomes["compute_80"] = {Verdict::wrong_result, "output y: 1 of 4096 elements differ (trial 1, n=4096)"};
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90, 100}), r);
  EXPECT_EQ(r.verdict, Verdict::wrong_result);
  EXPECT_EQ(r.reason, "for sm_80, which the project builds for (compute_80 PTX only, run on this GPU (9.0) through the "
                      "driver's JIT compiler): output y: 1 of 4096 elements differ (trial 1, n=4096)");
  EXPECT_FALSE(r.verification.passed);
  EXPECT_EQ(r.verification.failure.rfind("sm_80: output y", 0), 0u) << r.verification.failure;
  ASSERT_EQ(r.verification.archs.size(), 1u);  // decided: the later ones are not checked
  EXPECT_EQ(r.verification.archs[0].outcome, ArchOutcome::failed);
  EXPECT_EQ(gpu.builds.size(), 2u);
}

TEST(ArchVerification, ACrashThereIsACrash) {
  ScriptedArchEvaluator gpu;
  gpu.outcomes["compute_86"] = {Verdict::crashed, "the candidate crashed: an illegal memory access was encountered"};
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({86, 90}), r);
  EXPECT_EQ(r.verdict, Verdict::crashed);
  EXPECT_EQ(r.reason.rfind("for sm_86, which the project builds for", 0), 0u) << r.reason;
}

TEST(ArchVerification, AnArchitectureTheOriginalDoesNotCompileForIsSkipped) {
  ScriptedArchEvaluator gpu;
  gpu.compile_errors["original@compute_70"] = "nvcc fatal   : Unsupported gpu architecture 'compute_70'";
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({70, 90}), r);
  EXPECT_EQ(r.verdict, Verdict::accepted);
  ASSERT_EQ(r.verification.archs.size(), 2u);
  EXPECT_EQ(r.verification.archs[0].outcome, ArchOutcome::skipped);
  EXPECT_EQ(r.verification.archs[0].detail,
            "the original does not compile for it: nvcc fatal   : Unsupported gpu architecture 'compute_70'");
  EXPECT_EQ(gpu.builds, (std::vector<std::string>{"original@compute_70"}));  // the candidate not even built
}

TEST(ArchVerification, AnArchitectureTheOriginalCannotBeVerifiedOnIsSkipped) {
  ScriptedArchEvaluator gpu;
  gpu.outcomes["compute_80"] = {Verdict::infra_error, "the original kernel crashed in the harness: illegal address"};
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90}), r);
  EXPECT_EQ(r.verdict, Verdict::accepted);
  EXPECT_EQ(r.verification.archs[0].outcome, ArchOutcome::skipped);
  EXPECT_EQ(r.verification.archs[0].detail,
            "the original cannot be verified for it here: the original kernel crashed in the harness: illegal address");
}

TEST(ArchVerification, ACompileErrorForANewerArchitectureIsTheCandidates) {
  ScriptedArchEvaluator gpu;
  gpu.compile_errors["candidate@sm_100"] = "variant.cu(12): error: identifier \"__nv_fp8\" is undefined";
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({90, 100}), r);
  EXPECT_EQ(r.verdict, Verdict::compile_error);
  EXPECT_EQ(r.reason, "for sm_100, which the project builds for (sm_100 SASS): does not compile: "
                      "variant.cu(12): error: identifier \"__nv_fp8\" is undefined");
  EXPECT_NE(r.compile_log.find("--- the compile for sm_100 ---"), std::string::npos);
}

TEST(ArchVerification, ACompileTheMachineCouldNotFinishProvesNothing) {
  ScriptedArchEvaluator gpu;
  gpu.compile_errors["candidate@compute_80"] = "nvcc was killed by signal 9";
  gpu.machine_failures.insert("candidate@compute_80");
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90}), r);
  EXPECT_EQ(r.verdict, Verdict::infra_error);
  EXPECT_NE(r.reason.find("could not be compiled for sm_80 here"), std::string::npos) << r.reason;
}

TEST(ArchVerification, OnlyACorrectCandidateIsCheckedAndNoListMeansTheJudgesArchitectureOnly) {
  ScriptedArchEvaluator gpu;
  EvalResult wrong;
  wrong.verdict = Verdict::wrong_result;
  wrong.reason = "elements differ";
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90}), wrong);
  EXPECT_EQ(wrong.verdict, Verdict::wrong_result);
  EXPECT_EQ(wrong.reason, "elements differ");
  EXPECT_TRUE(gpu.builds.empty());
  EXPECT_TRUE(wrong.verification.archs.empty());

  TargetArchs none;
  none.source = "none found (looked at ...)";
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, none, r);
  EXPECT_EQ(r.verdict, Verdict::accepted);
  EXPECT_EQ(r.verification.archs_source, "none found (looked at ...): this GPU's architecture only");
  EXPECT_TRUE(gpu.builds.empty());
}

// An evaluator that cannot build for other architectures (the Evaluator default) never passes one.
class JudgeArchOnlyEvaluator : public ScriptedArchEvaluator {
 public:
  CompiledVariant compile_for_arch(const config::KernelSpec& spec, const Variant& variant,
                                   const ArchBuild& build) override {
    return Evaluator::compile_for_arch(spec, variant, build);
  }
};

TEST(ArchVerification, AnEvaluatorThatCannotBuildForAnArchitectureSaysSo) {
  JudgeArchOnlyEvaluator gpu;
  EvalResult r = accepted_result();
  verify_target_archs(gpu, kArchSpec, kArchOriginal, kArchCandidate, scripted_targets({80, 90}), r);
  EXPECT_EQ(r.verdict, Verdict::accepted);
  EXPECT_EQ(r.verification.archs[0].outcome, ArchOutcome::skipped);
  EXPECT_EQ(r.verification.archs[0].detail,
            "the original could not be compiled for it here: this evaluator builds for its own architecture only, "
            "not for sm_80");
}

}  // namespace
}  // namespace kb::profiler
