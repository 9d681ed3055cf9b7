// Every architecture the project builds, end to end on a GPU (label gpu): `kernelbot eval` on a
// copy of examples/ whose saxpy is built for several architectures, with model-written candidates
// from tests/profiler/candidates/ whose paths differ by architecture. On an H200 (sm_90): a wrong
// `#if __CUDA_ARCH__ < 900` path is rejected naming sm_80 (the compute_80 build, run through the
// driver's JIT, takes it), while the same file passes when the project builds for sm_90 only; a
// wrong sm_90a path is rejected naming sm_90a; an sm_100 path that does not compile is the
// candidate's compile_error; an honest candidate with a path per architecture is accepted with
// each architecture verified, compiled only (sm_100) or skipped (sm_70, which CUDA 13 dropped).
//
// KB_TEST_SOURCE_DIR and KERNELBOT_BIN override the compiled-in paths (the device machine runs a
// copy of the tree elsewhere).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/result_types.h"
#include "profiler/sandbox/sandbox_process.h"
#include "tests/support/hand_written_candidates.h"
#include "tests/support/toml_text.h"

namespace kb::arch_gpu {
namespace {
namespace fs = std::filesystem;

fs::path tree() {
  const char* env = std::getenv("KB_TEST_SOURCE_DIR");
  return env && *env ? fs::path(env) : fs::path(KB_SOURCE_DIR);
}
std::string kernelbot_binary() {
  const char* env = std::getenv("KERNELBOT_BIN");
  return env && *env ? std::string(env) : std::string(KB_KERNELBOT_BIN);
}

// examples/ (its src/ and include/) under a directory of its own, with kernelbot.toml being the
// examples' file, its [project] replaced by `project` and shorter [verify]/[bench] settings, and
// `compile_commands` (when given) as build/compile_commands.json. The work directory (compile
// cache, device calibration) is shared by every repository of this suite.
fs::path arch_repo(const std::string& name, const std::string& project, const std::string& compile_commands = "") {
  const fs::path base = fs::temp_directory_path() / "kernelbot-arch-gpu-test";
  const fs::path d = base / name;
  fs::remove_all(d);
  fs::create_directories(d);
  for (const char* sub : {"src", "include"}) fs::copy(tree() / "examples" / sub, d / sub, fs::copy_options::recursive);
  std::ifstream in(tree() / "examples" / "kernelbot.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string toml = text.str();
  for (const char* table : {"project", "search", "verify", "bench"}) toml = kb::testing::without_table(toml, table);
  std::ofstream(d / "kernelbot.toml")
      << "[project]\ninclude_dirs = [\"include\"]\n"
      << project << "\n[search]\nwork_dir = \"" << (base / "work").string()
      << "\"\n\n[verify]\ntrials = 3\ntimeout_s = 120\n\n[bench]\nmin_time_s = 0.1\nmin_samples = 20\n"
         "max_samples = 400\ntimeout_s = 5\n\n"
      << toml;
  if (!compile_commands.empty()) {
    fs::create_directories(d / "build");
    std::ofstream(d / "build" / "compile_commands.json")
        << R"([{"directory": ")" << (d / "build").string() << R"(", "command": ")" << compile_commands
        << R"(", "file": "../src/saxpy.cu"}])";
  }
  return d;
}

struct ArchEval {
  profiler::SandboxResult process;
  EvalResult result;
  bool parsed = false;
};

ArchEval eval_saxpy(const fs::path& repository, const std::string& candidate) {
  profiler::SandboxCommand c;
  c.argv = {kernelbot_binary(),
            "--config",
            (repository / "kernelbot.toml").string(),
            "--json",
            "eval",
            "--kernel",
            "saxpy",
            "--candidate",
            kb::testing::hand_written_candidate(tree(), candidate).string()};
  c.scrub_env = false;      // kernelbot itself is trusted; it scrubs its own children
  c.launches_bwrap = true;  // as root, bwrap needs the capabilities a sandboxed child would lose
  c.limits.wall_time_s = 600;
  ArchEval r;
  r.process = profiler::run_sandboxed(c);
  if (const char* save = std::getenv("KB_TEST_SAVE_DIR"); save && *save) {
    const std::string stem = std::string(save) + "/arch-" + repository.filename().string() + "-" +
                             fs::path(candidate).stem().string();
    std::ofstream(stem + ".json") << r.process.out;
    std::ofstream(stem + ".stderr") << r.process.err;
  }
  try {
    r.result = nlohmann::json::parse(r.process.out).get<EvalResult>();
    r.parsed = true;
  } catch (const std::exception&) {
  }
  return r;
}

std::string explain(const ArchEval& r) {
  std::string archs;
  for (const auto& a : r.result.verification.archs)
    archs += "\n  " + a.arch + ": " + to_string(a.outcome) + " (" + a.how + ") " + a.detail;
  return "exit " + r.process.describe() + "\nverdict " + to_string(r.result.verdict) + ": " + r.result.reason +
         "\ntarget architectures: " + r.result.verification.archs_source + archs + "\nstderr:\n" +
         r.process.err.substr(r.process.err.size() > 3000 ? r.process.err.size() - 3000 : 0);
}

const ArchCheck* arch_check(const ArchEval& r, const std::string& arch) {
  for (const auto& a : r.result.verification.archs)
    if (a.arch == arch) return &a;
  return nullptr;
}

void expect_outcome(const ArchEval& r, const std::string& arch, ArchOutcome outcome) {
  const ArchCheck* a = arch_check(r, arch);
  ASSERT_NE(a, nullptr) << arch << " was not checked\n" << explain(r);
  EXPECT_EQ(a->outcome, outcome) << arch << "\n" << explain(r);
}

TEST(ArchGpu, AWrongPathForOlderGpusIsRejectedNamingSm80) {
  const ArchEval r = eval_saxpy(arch_repo("sm80-sm90", "target_archs = [\"sm_80\", \"sm_90\"]\n"),
                                "saxpy_arch_branch_off_by_one.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.process.exit_code, 0) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::wrong_result) << explain(r);
  EXPECT_EQ(r.result.reason.rfind("for sm_80, which the project builds for (compute_80 PTX only", 0), 0u) << explain(r);
  EXPECT_FALSE(r.result.verification.passed);
  EXPECT_EQ(r.result.verification.failure.rfind("sm_80: ", 0), 0u) << explain(r);
  expect_outcome(r, "sm_80", ArchOutcome::failed);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}

// The control: the judge's own build alone (what kernelbot verified before) accepts that file.
TEST(ArchGpu, TheSameFileIsAcceptedWhenTheProjectBuildsForSm90Only) {
  const ArchEval r = eval_saxpy(arch_repo("sm90", "target_archs = [\"sm_90\"]\n"), "saxpy_arch_branch_off_by_one.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::accepted) << explain(r);
  expect_outcome(r, "sm_90", ArchOutcome::verified);
  EXPECT_EQ(r.result.verification.archs.size(), 1u) << explain(r);
}

TEST(ArchGpu, TheArchitecturesAreReadFromCompileCommandsJson) {
  const ArchEval r = eval_saxpy(arch_repo("compile-commands", "",
                                          "/usr/local/cuda/bin/nvcc -O3 -gencode arch=compute_80,code=sm_80 -gencode "
                                          "arch=compute_90,code=sm_90 -I../include -c ../src/saxpy.cu"),
                                "saxpy_arch_branch_off_by_one.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::wrong_result) << explain(r);
  EXPECT_NE(r.result.reason.find("for sm_80"), std::string::npos) << explain(r);
  EXPECT_EQ(r.result.verification.archs_source.rfind("build/compile_commands.json, the entry of src/saxpy.cu", 0), 0u)
      << explain(r);
}

TEST(ArchGpu, AWrongArchitectureSpecificPathIsRejectedNamingSm90a) {
  const ArchEval r = eval_saxpy(arch_repo("sm90-sm90a", "target_archs = [\"sm_90\", \"sm_90a\"]\n"),
                                "saxpy_arch_specific_wrong.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::wrong_result) << explain(r);
  EXPECT_EQ(r.result.reason.rfind("for sm_90a, which the project builds for (sm_90a SASS, run on this GPU)", 0), 0u)
      << explain(r);
  expect_outcome(r, "sm_90", ArchOutcome::verified);
  expect_outcome(r, "sm_90a", ArchOutcome::failed);
}

TEST(ArchGpu, APathForANewerGpuMustAtLeastCompile) {
  const ArchEval r = eval_saxpy(arch_repo("sm80-sm90-sm100", "target_archs = [\"sm_80\", \"sm_90\", \"sm_100\"]\n"),
                                "saxpy_arch_newer_does_not_compile.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::compile_error) << explain(r);
  EXPECT_EQ(r.result.reason.rfind("for sm_100, which the project builds for (sm_100 SASS): does not compile", 0), 0u)
      << explain(r);
  EXPECT_NE(r.result.reason.find("blackwell_fma"), std::string::npos) << explain(r);
  expect_outcome(r, "sm_80", ArchOutcome::verified);  // the paths this GPU runs are right
  expect_outcome(r, "sm_100", ArchOutcome::failed);
}

TEST(ArchGpu, AnHonestCandidateWithAPathPerArchitectureIsAccepted) {
  const ArchEval r = eval_saxpy(arch_repo("every-kind",
                                          "target_archs = [\"sm_70\", \"sm_80\", \"sm_90\", \"sm_90a\", \"sm_100\"]\n"),
                                "saxpy_arch_branches.cu");
  ASSERT_TRUE(r.parsed) << explain(r);
  EXPECT_EQ(r.process.exit_code, 0) << explain(r);
  EXPECT_EQ(r.result.verdict, Verdict::accepted) << explain(r);
  EXPECT_TRUE(r.result.verification.passed) << explain(r);
  EXPECT_EQ(r.result.verification.archs_source, "kernelbot.toml [project] target_archs") << explain(r);
  ASSERT_EQ(r.result.verification.archs.size(), 5u) << explain(r);
  // CUDA 13 dropped sm_70: the original does not compile for it, so it is skipped; an older
  // toolkit compiles it, and the H200 runs its PTX.
  const ArchCheck* sm70 = arch_check(r, "sm_70");
  ASSERT_NE(sm70, nullptr);
  if (sm70->outcome == ArchOutcome::skipped)
    EXPECT_EQ(sm70->detail.rfind("the original does not compile for it: ", 0), 0u) << explain(r);
  else EXPECT_EQ(sm70->outcome, ArchOutcome::verified) << explain(r);
  expect_outcome(r, "sm_80", ArchOutcome::verified);
  EXPECT_NE(arch_check(r, "sm_80")->how.find("compute_80 PTX only"), std::string::npos) << explain(r);
  expect_outcome(r, "sm_90", ArchOutcome::verified);
  expect_outcome(r, "sm_90a", ArchOutcome::verified);
  expect_outcome(r, "sm_100", ArchOutcome::compiled);
  EXPECT_EQ(arch_check(r, "sm_100")->detail, "newer than this GPU (compute capability 9.0)");
  EXPECT_GT(r.result.phase_s.count("target architectures"), 0u);
  std::printf("[ %s ] %.2fx, %s\n", to_string(r.result.verdict), r.result.speedup, explain(r).c_str());
}

}  // namespace
}  // namespace kb::arch_gpu
