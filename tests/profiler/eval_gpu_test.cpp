// `kernelbot eval` end to end on a GPU (label gpu): the real kernelbot binary, the real harness,
// examples/kernelbot.toml, hand-written candidates in tests/profiler/candidates/. Correct faster
// candidates must be accepted with their speedup; each kind of cheating or broken candidate must
// be rejected with a reason a reviewer understands.
//
// KB_TEST_SOURCE_DIR and KERNELBOT_BIN override the compiled-in paths (the device machine runs
// a copy of the tree elsewhere).
#include <gtest/gtest.h>

#include "tests/support/toml_text.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/result_types.h"
#include "profiler/sandbox_process.h"

namespace kb {
namespace {
namespace fs = std::filesystem;

fs::path source_dir() {
  const char* env = std::getenv("KB_TEST_SOURCE_DIR");
  return env && *env ? fs::path(env) : fs::path(KB_SOURCE_DIR);
}
std::string kernelbot() {
  const char* env = std::getenv("KERNELBOT_BIN");
  return env && *env ? std::string(env) : std::string(KB_KERNELBOT_BIN);
}

// A copy of examples/ with test settings appended to its kernelbot.toml. The work directory (and
// its compile cache and device calibration) survives from one test to the next.
fs::path repo() {
  static const fs::path dir = [] {
    const char* env = std::getenv("KB_TEST_WORK_DIR");
    fs::path d = env && *env ? fs::path(env) : fs::temp_directory_path() / "kernelbot-eval-gpu-test";
    fs::create_directories(d);
    for (const char* sub : {"src", "include"}) {
      fs::remove_all(d / sub);
      fs::copy(source_dir() / "examples" / sub, d / sub, fs::copy_options::recursive);
    }
    std::ifstream in(source_dir() / "examples" / "kernelbot.toml");
    std::stringstream original;
    original << in.rdbuf();
    std::string toml = original.str();
    // examples/kernelbot.toml already gives layernorm's inputs the "normal" distribution (with
    // "large" inputs the original's own float32 rounding exceeds the tolerance, seen on the H100).
    EXPECT_NE(toml.find("distribution = \"normal\""), std::string::npos);
    // Shorter timing than the defaults keeps the suite inside a few minutes of device time.
    const std::string bench = "\n[bench]\nmin_time_s = 0.1\nmin_samples = 20\nmax_samples = 400\ntimeout_s = 5\n";
    toml = kb::testing::without_table(kb::testing::without_table(toml, "bench"), "verify");
    std::ofstream(d / "kernelbot.toml") << toml << "\n[verify]\ntrials = 3\ntimeout_s = 120\n" << bench;
    std::ofstream(d / "kernelbot-hang.toml") << toml << "\n[verify]\ntrials = 3\ntimeout_s = 8\n" << bench;
    return d;
  }();
  return dir;
}

struct EvalRun {
  profiler::SandboxResult process;
  EvalResult result;
  bool parsed = false;
};

EvalRun eval(const std::string& kernel, const std::string& candidate, const std::string& config = "kernelbot.toml",
             std::map<std::string, std::string> env = {}) {
  profiler::SandboxCommand c;
  c.argv = {kernelbot(), "--config", (repo() / config).string(), "--json", "eval", "--kernel", kernel, "--candidate",
            (source_dir() / "tests/profiler/candidates" / candidate).string()};
  c.scrub_env = false;  // kernelbot itself is trusted; it must scrub its own children
  c.extra_env = std::move(env);
  c.limits.wall_time_s = 300;
  EvalRun r;
  r.process = profiler::run_sandboxed(c);
  // Keep the evidence when asked (the device machine's run collects it for the notes).
  if (const char* save = std::getenv("KB_TEST_SAVE_DIR"); save && *save) {
    const std::string stem = std::string(save) + "/eval-" + kernel + "-" + fs::path(candidate).stem().string();
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

std::string describe(const EvalRun& r) {
  return "exit " + r.process.describe() + "\nverdict " + to_string(r.result.verdict) + ": " + r.result.reason +
         "\nstderr:\n" + r.process.err.substr(r.process.err.size() > 3000 ? r.process.err.size() - 3000 : 0);
}

void expect_accepted(const EvalRun& r) {
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << describe(r);
  EXPECT_EQ(r.result.verdict, Verdict::accepted) << describe(r);
  EXPECT_TRUE(r.result.verification.passed);
  EXPECT_GE(r.result.speedup, 1.05);
  EXPECT_EQ(r.result.timings.size(), 3u);
  std::printf("[ accepted ] %.2fx: %s\n", r.result.speedup, r.result.reason.c_str());
}

void expect_rejected(const EvalRun& r, Verdict verdict, const std::string& reason_part) {
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_EQ(r.process.exit_code, 0) << "an evaluation that ran exits 0 whatever its verdict\n" << describe(r);
  EXPECT_EQ(r.result.verdict, verdict) << describe(r);
  EXPECT_NE(r.result.reason.find(reason_part), std::string::npos) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}

TEST(EvalGpu, SaxpyFloat4IsAccepted) { expect_accepted(eval("saxpy", "saxpy_fast.cu")); }
TEST(EvalGpu, TransposeTiledIsAccepted) { expect_accepted(eval("transpose", "transpose_tiled.cu")); }
TEST(EvalGpu, RowSumWarpReductionIsAccepted) { expect_accepted(eval("row_sum", "row_sum_warp.cu")); }
TEST(EvalGpu, LayernormWarpPerRowIsAccepted) {
  EvalRun r = eval("layernorm", "layernorm_warp.cu");
  expect_accepted(r);
  // Far over [verify].strict_speedup: believed only after the strict pass.
  if (r.result.speedup > 10) {
    EXPECT_TRUE(r.result.verification.strict_pass);
  }
}

TEST(EvalGpu, WrongResultIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_wrong.cu"), Verdict::wrong_result, "elements differ");
}
TEST(EvalGpu, SkippedOutputIsRejected) {
  expect_rejected(eval("transpose", "transpose_skips_edges.cu"), Verdict::wrong_result, "not fully written");
}
TEST(EvalGpu, CachedAnswerIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_cached.cu"), Verdict::wrong_result, "output y");
}
TEST(EvalGpu, ModifiedInputIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_modifies_input.cu"), Verdict::wrong_result, "x");
}
TEST(EvalGpu, RightAtOneSizeOnlyIsRejected) {
  expect_rejected(eval("saxpy", "saxpy_one_size.cu"), Verdict::wrong_result, "n=16777216");
}
TEST(EvalGpu, SideStreamWorkIsRejected) {
  EvalRun r = eval("saxpy", "saxpy_side_stream.cu");
  ASSERT_TRUE(r.parsed) << describe(r);
  EXPECT_TRUE(r.result.verdict == Verdict::rejected || r.result.verdict == Verdict::wrong_result) << describe(r);
  EXPECT_NE(r.result.reason.find("stream"), std::string::npos) << describe(r);
  std::printf("[ %s ] %s\n", to_string(r.result.verdict), r.result.reason.c_str());
}
TEST(EvalGpu, IllegalAddressCrashes) {
  expect_rejected(eval("saxpy", "saxpy_illegal_address.cu"), Verdict::crashed, "illegal");
}
TEST(EvalGpu, HangIsKilledAtTheTimeout) {
  auto start = std::chrono::steady_clock::now();
  expect_rejected(eval("saxpy", "saxpy_hang.cu", "kernelbot-hang.toml"), Verdict::timed_out, "hung: killed after");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 90);
}
TEST(EvalGpu, CandidateCannotReadGithubToken) {
  expect_accepted(eval("saxpy", "saxpy_reads_token.cu", "kernelbot.toml",
                       {{"GITHUB_TOKEN", "ghp_this_must_not_reach_the_candidate"}, {"OPENAI_API_KEY", "sk-nope"}}));
}

}  // namespace
}  // namespace kb
