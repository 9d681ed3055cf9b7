// GpuEvaluator on a CPU: real nvcc compiles, and a fake `kernelbot-harness` (a shell script named
// by KERNELBOT_HARNESS) plays the GPU runner's side of the process boundary: the job file it
// receives, the result file it writes, its exit codes, hangs and crash lines.
#include "profiler/evaluate/gpu_evaluator.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "config/config_loader.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

const char* kSource = R"SH(
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
void launch_scale(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }
)SH";

// The fake harness logs every job it gets in <root>/log, outside its job directory: only the
// process sandbox lets it. The namespace sandbox has its own tests (sandbox_escape_test.cpp).
const char* kConfig = R"SH(
[verify]
timeout_s = 1.5
strict_speedup = 10.0
sandbox = "process"
persistent_judge = false   # the one-job judge; the session has its own tests below

[[kernel]]
name = "scale"
source = "src/scale.cu"
launcher = "launch_scale"
sizes = [{ n = 1000 }, { n = 5000 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)SH";

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_script(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  chmod(p.c_str(), 0755);
}

class GpuEvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kb-gpueval-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::create_directories(root_ / "log");
    std::ofstream(root_ / "src" / "scale.cu") << kSource;
    config_ = config::load_config_text(kConfig, (root_ / "kernelbot.toml").string(), root_);
    device_.name = "Fake GPU";
    device_.uuid = "GPU-fake-0001";
    device_.cc_major = 9;
    device_.driver_version = "580.0";
    // The fake GPU's ceilings stay in this test's folder, out of the user's cache.
    setenv("KERNELBOT_CACHE_DIR", (root_ / ".kernelbot").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("KERNELBOT_CACHE_DIR");
    unsetenv("KERNELBOT_HARNESS");
    unsetenv("CUDA_HOME");
    fs::remove_all(root_);
  }

  // A fake harness: answers --calibrate, saves each job it gets as log/job-N.json, and runs
  // `body` (shell, with $job, $out and $mode set) for jobs, in a subshell; then seals $out with the
  // key kernelbot passed on stdin, as the real judge does (unless `seal` is false: a forgery).
  // As a session (--session DIR) it reads the key frame, then jobs as frames on descriptor 3, logs
  // "session <pid>" to log/calls once, copies each candidate library it is sent to log/lib-N.so,
  // runs `body` with $out in DIR, and answers {"seq": N, "exit_code": <body's status>, "result":
  // <$out>} sealed with the key (unless `seal` is false) as a frame on descriptor 4, emptying DIR.
  void fake_harness(const std::string& body, bool seal = true) {
    const std::string log = (root_ / "log").string();
    write_script(root_ / "kernelbot-harness", R"SH(#!/bin/sh
log=)SH" + log + R"SH(
if [ "$1" = "--session" ]; then
  dir="$2"
  echo "session $$" >> $log/calls
  read -r klen <&3
  key=$(head -c "$klen" <&3)
  seq=0
  while read -r len <&3; do
    n=$(ls $log | grep -c '^job-')
    job="$log/job-$n.json"
    head -c "$len" <&3 > "$job"
    out="$dir/out.json"
    mode=$(grep -o '"mode": *"[a-z_]*"' "$job" | sed 's/.*"\([a-z_]*\)"$/\1/')
    lib=$(grep -o '"candidate_library": *"[^"]*"' "$job" | sed 's/.*"\([^"]*\)"$/\1/')
    [ -n "$lib" ] && cp "$lib" "$log/lib-$n.so"
    (
)SH" + body + R"SH(
    ) >&2
    rc=$?
    if [ -s "$out" ]; then result=",\"result\":$(cat "$out")"; else result=""; fi
    rm -rf "$dir"/*
    printf '{"seq":%s,"exit_code":%s%s}' "$seq" "$rc" "$result" > "$log/reply.json"
    )SH" + std::string(seal ? std::string(KB_SEAL_RESULT) + " \"$key\" \"$log/reply.json\"" : ":") +
                                                  R"SH(
    reply=$(cat "$log/reply.json")
    printf '%s\n%s' "${#reply}" "$reply" >&4
    seq=$((seq + 1))
  done
  exit 0
fi
if [ "$1" = "--calibrate" ]; then
  echo calibrate >> $log/calls
  printf '{"name":"Fake GPU","uuid":"GPU-fake-0001","driver_version":"580.0","copy_bandwidth_gbps":3000.5,"fp32_tflops":51.2}' > "$5"
  exit 0
fi
job="$2"; out="$4"
[ "$5" = "--seal-key-stdin" ] && read key
n=$(ls $log | grep -c '^job-')
cp "$job" "$log/job-$n.json"
mode=$(grep -o '"mode": *"[a-z_]*"' "$job" | sed 's/.*"\([a-z_]*\)"$/\1/')
(
)SH" + body + R"SH(
)
rc=$?
)SH" + (seal ? std::string("[ -s \"$out\" ] && ") + KB_SEAL_RESULT + " \"$key\" \"$out\"\n" : std::string()) +
                                                  "exit $rc\n");
    setenv("KERNELBOT_HARNESS", (root_ / "kernelbot-harness").c_str(), 1);
  }

  nlohmann::json job(int n) {
    return nlohmann::json::parse(read(root_ / "log" / ("job-" + std::to_string(n) + ".json")));
  }
  int jobs() {
    int n = 0;
    for (const auto& e : fs::directory_iterator(root_ / "log")) n += e.path().filename().string().rfind("job-", 0) == 0;
    return n;
  }

  // The device's ceilings as a GPU machine would have cached them: no calibration runs (the
  // namespace tests' harnesses do not answer --calibrate).
  void cache_device_ceilings() {
    fs::create_directories(root_ / ".kernelbot");
    std::ofstream(root_ / ".kernelbot" / "device-GPU-fake-0001.json")
        << R"({"uuid":"GPU-fake-0001","name":"Fake GPU","driver":"580.0",
               "measured":{"name":"Fake GPU","uuid":"GPU-fake-0001","copy_bandwidth_gbps":3000,"fp32_tflops":50}})";
  }

  // How many sessions the fake harness started (its "session <pid>" lines in log/calls).
  size_t sessions() {
    const std::string calls = read(root_ / "log" / "calls");
    size_t n = 0;
    for (size_t at = calls.find("session "); at != std::string::npos; at = calls.find("session ", at + 1)) ++n;
    return n;
  }

  // A toolkit directory (CUDA_HOME) whose compute-sanitizer logs its arguments to log/sanitizer,
  // saves the job as log/sanitized-<tool>-<whose>-<trials>.json (whose: "original" when the job's
  // candidate library is the original's), runs the judge it wraps, prints "========= COMPUTE-SANITIZER",
  // then runs `body` (shell, with $tool, $whose and $trials set; it may print findings and exit 86),
  // then a clean summary, and exits with the judge's status.
  void fake_sanitizer(const std::string& body) {
    const fs::path cuda = root_ / "cuda";
    fs::create_directories(cuda / "bin");
    write_script(cuda / "bin" / "nvcc", "#!/bin/sh\nexec " + find_nvcc() + " \"$@\"\n");
    const std::string log = (root_ / "log").string();
    write_script(cuda / "bin" / "compute-sanitizer", "#!/bin/sh\nlog=" + log + R"SH(
echo "$@" >> $log/sanitizer
tool="$2"
job=""
prev=""
for a in "$@"; do
  [ "$prev" = "--job" ] && job="$a"
  prev="$a"
done
lib() { grep -o "\"$1\": *\"[^\"]*\"" "$job" | sed 's/.*"\([^"]*\)"$/\1/'; }
whose=candidate
[ "$(lib candidate_library)" = "$(lib baseline_library)" ] && whose=original
trials=$(grep -o '"trials": *[0-9]*' "$job" | grep -o '[0-9]*$')
cp "$job" "$log/sanitized-$tool-$whose-$trials.json"
# The tool runs the judge it wraps: everything from the harness's path on.
while [ $# -gt 0 ] && [ "${1##*/}" != kernelbot-harness ]; do shift; done
"$@"
status=$?
echo "========= COMPUTE-SANITIZER"
)SH" + body + R"SH(
if [ "$tool" = racecheck ]; then echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else echo "========= ERROR SUMMARY: 0 errors"; fi
exit $status
)SH");
    setenv("CUDA_HOME", cuda.c_str(), 1);
  }

  Variant original() { return Variant{kSource, {}, {}, "original"}; }
  // The original and the candidate compiled by `evaluator`, as most tests here start.
  std::pair<CompiledVariant, CompiledVariant> compile_both(GpuEvaluator& evaluator) {
    return {evaluator.compile(config_.kernels[0], original()), evaluator.compile(config_.kernels[0], candidate())};
  }
  Variant candidate() {
    std::string s = kSource;
    s.replace(s.find("(n + 255) / 256, 256"), 20, "(n + 127) / 128, 128");
    return Variant{s, {}, {}, "128 threads"};
  }

  fs::path root_;
  config::Config config_;
  DeviceInfo device_;
};

const char* kAcceptingHarness = R"SH(
case "$mode" in
verify_and_time) cat > "$out" <<'JSON'
{"verdict":"accepted","reason":"harness says fine","verification":{"passed":true,"trials":5},
 "timings":[{"size_label":"n=1000","speedup":1.5,"significant":true},{"size_label":"n=5000","speedup":1.5,"significant":true}]}
JSON
;;
metrics) cat > "$out" <<'JSON'
{"verdict":"pending","baseline_metrics":{"status":"ok","values":{"sm_throughput_pct":41.5}},
 "candidate_metrics":{"status":"ok","values":{"sm_throughput_pct":77.0}}}
JSON
;;
time_baseline) cat > "$out" <<'JSON'
{"verdict":"pending","timings":[{"size_label":"n=1000","baseline":{"median_us":12.5,"samples":40}}]}
JSON
;;
esac
exit 0
)SH";

TEST_F(GpuEvaluatorTest, AcceptedCandidateWithMetricsAndCachedCalibration) {
  fake_harness(kAcceptingHarness);
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok) << base.log;
  ASSERT_TRUE(cand.ok) << cand.log;

  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, true, false});
  EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
  EXPECT_NEAR(r.speedup, 1.5, 1e-9);
  EXPECT_EQ(r.device.copy_bandwidth_gbps, 3000.5);
  EXPECT_EQ(r.baseline_metrics.values.at("sm_throughput_pct"), 41.5);
  EXPECT_EQ(r.candidate_metrics.values.at("sm_throughput_pct"), 77.0);
  EXPECT_GT(r.candidate_metrics.registers_per_thread, 0) << "ptxas facts fill in what the run did not measure";
  EXPECT_GT(r.run_s, 0);

  ASSERT_EQ(jobs(), 2);
  nlohmann::json j = job(0);
  EXPECT_EQ(j["mode"], "verify_and_time");
  EXPECT_EQ(j["baseline_library"], base.library_path);
  EXPECT_EQ(j["candidate_library"], cand.library_path);
  EXPECT_EQ(j["copy_bandwidth_gbps"], 3000.5);
  // The configured sizes, then the verification-only generalization sizes of a full evaluation.
  const auto counts = j["args"][0]["counts"].get<std::vector<int64_t>>();
  ASSERT_GT(counts.size(), 2u);
  EXPECT_EQ(counts[0], 1000);
  EXPECT_EQ(counts[1], 5000);
  EXPECT_EQ(j["verify_only_sizes"], counts.size() - 2);
  EXPECT_EQ(counts[2], 1) << "the smallest n first";
  EXPECT_EQ(job(1)["mode"], "metrics");
  EXPECT_EQ(job(1)["verify_only_sizes"], 0) << "hardware metrics profile configured sizes only";
  EXPECT_EQ(job(1)["args"][0]["counts"], nlohmann::json::parse("[1000, 5000]"));
  EXPECT_EQ(j["bench"]["max_error"], config_.bench.max_error) << "no target asked for: [bench]'s";

  // The measured ceilings are stored beside the work directory and reused by a later run.
  EXPECT_TRUE(fs::exists(root_ / ".kernelbot" / "device-GPU-fake-0001.json"));
  GpuEvaluator later(config_, device_);
  EXPECT_EQ(later.device().fp32_tflops, 51.2);
  EXPECT_EQ(read(root_ / "log" / "calls"), "calibrate\n");
  // No job directories are left behind after clean runs.
  EXPECT_TRUE(fs::is_empty(root_ / ".kernelbot" / "work" / "jobs"));
}

// A screening is one harness job asking for less, and never accepts: the harness's "accepted"
// comes back pending, with no strict pass, metrics run or sanitizer after it.
TEST_F(GpuEvaluatorTest, AScreeningIsOneShortJobAndNeverAccepts) {
  fake_harness(kAcceptingHarness);
  config_.verify.strict_speedup = 1.1;  // the harness's 1.5x would trigger a strict pass in a full evaluation
  config_.search.screen_max_samples = 7;
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok && cand.ok);
  EvalOptions options;
  options.screening = true;
  options.collect_metrics = true;
  options.sanitize = true;
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, options);
  EXPECT_EQ(r.verdict, Verdict::pending) << r.reason;
  EXPECT_NE(r.reason.find("passed the screening"), std::string::npos) << r.reason;
  EXPECT_NEAR(r.speedup, 1.5, 1e-9);
  ASSERT_EQ(jobs(), 1) << "one harness call: no strict, metrics or sanitizer job";
  nlohmann::json j = job(0);
  EXPECT_EQ(j["mode"], "verify_and_time");
  EXPECT_EQ(j["trials"], 1);
  EXPECT_EQ(j["timed_sizes"], 1);
  EXPECT_EQ(j["bench"]["max_samples"], 7);
  EXPECT_EQ(j["bench"]["max_error"], config_.bench.max_error) << "a screening keeps its own timing";
  EXPECT_EQ(j["distributions"][j["distribution_start"].get<size_t>() % j["distributions"].size()], "offset");
}

// The winner's counters after a search that verified it: one metrics job, no verification job
// before it; a failed metrics run is an infra_error that names it, never a verdict on the code.
TEST_F(GpuEvaluatorTest, CountingOnlyIsOneMetricsJobWithoutVerification) {
  fake_harness(kAcceptingHarness);
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok && cand.ok);
  EvalOptions options;
  options.time = false;
  options.verify = false;
  options.collect_metrics = true;
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, options);
  EXPECT_EQ(r.verdict, Verdict::not_faster) << r.reason;
  EXPECT_FALSE(r.verification.passed) << "nothing was verified by this run";
  EXPECT_EQ(r.baseline_metrics.values.at("sm_throughput_pct"), 41.5);
  EXPECT_EQ(r.candidate_metrics.values.at("sm_throughput_pct"), 77.0);
  EXPECT_GT(r.candidate_metrics.registers_per_thread, 0);
  ASSERT_EQ(jobs(), 1) << "the metrics job alone";
  EXPECT_EQ(job(0)["mode"], "metrics");
  EXPECT_EQ(job(0)["candidate_library"], cand.library_path);
  EXPECT_EQ(job(0)["metrics_of_original"], true);

  // The winner alone, for a search that has the original's counters from its measurement: the job
  // says so and the result's counters of the original are left as they were.
  options.count_original = false;
  EvalResult winner_only = evaluator.evaluate(config_.kernels[0], base, cand, options);
  EXPECT_EQ(winner_only.verdict, Verdict::not_faster) << winner_only.reason;
  ASSERT_EQ(jobs(), 2);
  EXPECT_EQ(job(1)["mode"], "metrics");
  EXPECT_EQ(job(1)["metrics_of_original"], false);
  EXPECT_EQ(winner_only.candidate_metrics.values.at("sm_throughput_pct"), 77.0);
  EXPECT_EQ(winner_only.baseline_metrics.values.count("sm_throughput_pct"), 0u);
  options.count_original = true;

  fake_harness("exit 3\n");
  EvalResult failed = evaluator.evaluate(config_.kernels[0], base, cand, options);
  EXPECT_EQ(failed.verdict, Verdict::infra_error);
  EXPECT_NE(failed.reason.find("metrics run failed"), std::string::npos) << failed.reason;
}

// The search's full evaluations time to its own median error target ([search].max_error); a
// screening keeps its short timing's.
TEST_F(GpuEvaluatorTest, AFullEvaluationTimesToTheErrorTargetItIsGiven) {
  fake_harness(kAcceptingHarness);
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok && cand.ok);
  EvalOptions options;
  options.max_error = 0.004;
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, options);
  EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
  ASSERT_EQ(jobs(), 1);
  EXPECT_DOUBLE_EQ(job(0)["bench"]["max_error"].get<double>(), 0.004);
}

TEST_F(GpuEvaluatorTest, ProfileTimesTheBaselineAlone) {
  fake_harness(kAcceptingHarness);
  GpuEvaluator evaluator(config_, device_);
  CompiledVariant base = evaluator.compile(config_.kernels[0], original());
  EvalResult r = evaluator.profile_baseline(config_.kernels[0], base, false);
  EXPECT_EQ(r.verdict, Verdict::pending) << r.reason;
  ASSERT_EQ(r.timings.size(), 1u);
  EXPECT_EQ(r.timings[0].baseline.median_us, 12.5);
  EXPECT_EQ(r.baseline_metrics.status, "compiler report only");
  EXPECT_GT(r.baseline_metrics.registers_per_thread, 0);
  ASSERT_EQ(jobs(), 1);
  EXPECT_EQ(job(0)["mode"], "time_baseline");
  EXPECT_EQ(job(0)["candidate_library"], "");
}

TEST_F(GpuEvaluatorTest, ImplausibleSpeedupIsVerifiedAgainStrictly) {
  fake_harness(R"SH(
case "$mode" in
verify_and_time) cat > "$out" <<'JSON'
{"verdict":"accepted","verification":{"passed":true,"trials":5},
 "timings":[{"size_label":"n=1000","speedup":20.0,"significant":true},{"size_label":"n=5000","speedup":30.0,"significant":true}]}
JSON
;;
verify) cat > "$out" <<'JSON'
{"verdict":"wrong_result","reason":"output y differs","verification":{"passed":false,"trials":15,
 "failure":"output y: 3 of 5000 elements differ (trial 11, distribution large)"}}
JSON
;;
esac
exit 0
)SH");
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(r.verdict, Verdict::wrong_result);
  EXPECT_NE(r.reason.find("strict re-verification failed"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("3 of 5000 elements differ"), std::string::npos);
  EXPECT_FALSE(r.verification.strict_pass);
  ASSERT_EQ(jobs(), 2);
  EXPECT_EQ(job(1)["mode"], "verify");
  EXPECT_EQ(job(1)["strict"], true);
}

// The judge seals its result with the key kernelbot gave it; a result.json written by anything
// else in the sandbox (the candidate's server shares the job directory) is a forgery.
TEST_F(GpuEvaluatorTest, AnUnsealedOrMissealedResultIsAForgeryAndRejected) {
  fake_harness(kAcceptingHarness, /*seal=*/false);
  GpuEvaluator unsealed(config_, device_);
  auto [base, cand] = compile_both(unsealed);
  EvalResult r = unsealed.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(r.verdict, Verdict::rejected) << r.reason;
  EXPECT_NE(r.reason.find("seal"), std::string::npos) << r.reason;

  // Sealed, but with a key of its own choosing.
  std::string own = kAcceptingHarness;
  own.replace(own.rfind("exit 0"), 6,
              std::string(KB_SEAL_RESULT) + " 0123456789abcdef0123456789abcdef \"$out\"; exit 0");
  fake_harness(own, /*seal=*/false);
  GpuEvaluator own_key(config_, device_);
  r = own_key.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(r.verdict, Verdict::rejected) << r.reason;

  fake_harness(kAcceptingHarness);
  GpuEvaluator sealed(config_, device_);
  r = sealed.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
}

TEST_F(GpuEvaluatorTest, HangCrashAndCompileError) {
  fake_harness("sleep 30\n");
  GpuEvaluator hang(config_, device_);
  auto [base, cand] = compile_both(hang);
  auto start = std::chrono::steady_clock::now();
  EvalResult h = hang.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(h.verdict, Verdict::timed_out);
  EXPECT_EQ(h.reason.rfind("hung: killed after 1.", 0), 0u) << h.reason;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 6);

  fake_harness(R"SH(echo "kb-harness [info] trial 1" >&2
echo "kb-harness: candidate crashed: an illegal memory access was encountered (launching the candidate at n=1000)" >&2
exit 3
)SH");
  GpuEvaluator crash(config_, device_);
  EvalResult c = crash.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(c.verdict, Verdict::crashed);
  EXPECT_EQ(c.reason,
            "the candidate crashed: an illegal memory access was encountered (the harness ended with exit code 3)");

  int before = jobs();
  CompiledVariant broken = crash.compile(
      config_.kernels[0], Variant{"void launch_scale(const float*, float*, int) { oops }", {}, {}, "broken"});
  EvalResult b = crash.evaluate(config_.kernels[0], base, broken, EvalOptions{});
  EXPECT_EQ(b.verdict, Verdict::compile_error);
  EXPECT_NE(b.compile_log.find("oops"), std::string::npos);
  EXPECT_EQ(jobs(), before) << "nothing runs for a candidate that did not compile";
}

// [verify] compile_timeout_s reaches the one compiler that eval, search, run and run's
// re-verification of the PR's text all compile through (GpuEvaluator::compile): a compile bomb
// (tests/profiler/compile_bombs/) is the candidate's compile_error at that limit, and no job runs for it.
TEST_F(GpuEvaluatorTest, ACompileBombIsACompileErrorAtCompileTimeoutS) {
  fake_harness(kAcceptingHarness);
  // The original compiled first, under the default limit (a loaded machine may take seconds).
  const CompiledVariant base = GpuEvaluator(config_, device_).compile(config_.kernels[0], original());
  ASSERT_TRUE(base.ok) << base.log;
  config_.verify.compile_timeout_s = 2;
  GpuEvaluator evaluator(config_, device_);
  const std::string bomb = read(fs::path(KB_SOURCE_DIR) / "tests" / "profiler" / "compile_bombs" / "constexpr_loop.cu");
  const Variant v{bomb.substr(0, bomb.find("__global__")) + kSource, {}, {}, "bomb"};
  const auto start = std::chrono::steady_clock::now();
  const CompiledVariant cand = evaluator.compile(config_.kernels[0], v);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2 + 6);
  EXPECT_EQ(cand.failure_reason, "the compile ran out of its time limit (2 s, [verify] compile_timeout_s)")
      << cand.log.substr(0, 400);
  const EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(r.verdict, Verdict::compile_error);
  EXPECT_EQ(r.reason, cand.failure_reason);
  EXPECT_EQ(jobs(), 0);
}

// The accepting harness, which also answers the sanitized verify job as the judge does.
std::string sanitized_harness() {
  return std::string(R"SH(
if [ "$mode" = verify ]; then
  echo '{"verdict":"pending","reason":"ran under compute-sanitizer"}' > "$out"
  exit 0
fi
)SH") + kAcceptingHarness;
}

TEST_F(GpuEvaluatorTest, SanitizerErrorsReject) {
  fake_harness(sanitized_harness());
  // memcheck reports an out-of-bounds write in the candidate's library, not in the original's.
  fake_sanitizer(R"SH(
if [ "$tool" = memcheck ] && [ "$whose" = candidate ]; then
  echo "========= Invalid __global__ write of size 4 bytes"
  echo "=========     at scale_kernel(const float *, float *, int)+0x70 in variant.cu:4"
  echo "========= ERROR SUMMARY: 1 error"
  exit 86
fi
)SH");
  config_.verify.sanitizer_jobs = 1;  // one tool at a time: this test reads the order of their runs
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, false, true});
  EXPECT_EQ(r.verdict, Verdict::rejected) << r.reason;
  EXPECT_NE(r.reason.find("memcheck found 1 error (out-of-bounds or misaligned accesses"), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("one call at each of n=1000, n=5000"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.verification.sanitized);
  EXPECT_NE(r.verification.sanitizer_report.find("Invalid __global__ write"), std::string::npos);
  EXPECT_EQ(r.verification.sanitizer_sizes, (std::vector<std::string>{"n=1000", "n=5000"}));
  std::string calls = read(root_ / "log" / "sanitizer");
  EXPECT_NE(calls.find(
                "--tool memcheck --target-processes-filter exe --error-exitcode 86 --print-limit 20 --leak-check full "
                "--padding 65536"),
            std::string::npos)
      << calls;
  EXPECT_NE(calls.find("--job"), std::string::npos);
  EXPECT_EQ(calls.find("--tool racecheck"), std::string::npos) << "the first finding held against it ends the pass";
  // The sanitized job is one call at the smallest and one at the largest size set.
  nlohmann::json sanitized = nlohmann::json::parse(read(root_ / "log" / "sanitized-memcheck-candidate-1.json"));
  EXPECT_EQ(sanitized["mode"], "verify");
  EXPECT_EQ(sanitized["trials"], 1);
  EXPECT_EQ(sanitized["size_labels"], nlohmann::json::parse(R"(["n=1000", "n=5000"])"));
  EXPECT_EQ(sanitized["under_sanitizer"], true);  // the judge must leave CUPTI to the sanitizer
  EXPECT_EQ(sanitized["candidate_library"], cand.library_path);
  // The original ran under memcheck too, in the candidate's place: it found nothing there.
  nlohmann::json original = nlohmann::json::parse(read(root_ / "log" / "sanitized-memcheck-original-1.json"));
  EXPECT_EQ(original["candidate_library"], base.library_path);
  EXPECT_EQ(original["size_labels"], sanitized["size_labels"]);
}

TEST_F(GpuEvaluatorTest, SynccheckRunsAfterMemcheckAndRacecheckAndItsFindingsReject) {
  fake_harness(sanitized_harness());
  // memcheck and racecheck find nothing; synccheck finds a barrier some threads never reach.
  fake_sanitizer(R"SH(
if [ "$tool" = synccheck ] && [ "$whose" = candidate ]; then
  echo "========= Barrier error detected. Divergent thread(s) in warp"
  echo "========= ERROR SUMMARY: 1 error"
  exit 86
fi
)SH");
  config_.verify.sanitizer_jobs = 1;  // one tool at a time: this test reads the order of their runs
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, false, true});
  EXPECT_EQ(r.verdict, Verdict::rejected) << r.reason;
  EXPECT_NE(r.reason.find("synccheck found 1 error"), std::string::npos) << r.reason;
  EXPECT_NE(r.verification.sanitizer_report.find("Barrier error"), std::string::npos);
  EXPECT_EQ(r.verification.sanitizer_tools,
            (std::vector<std::string>{"memcheck (with leak check)", "racecheck", "synccheck"}));
  const std::string calls = read(root_ / "log" / "sanitizer");
  const size_t memcheck = calls.find("--tool memcheck"), racecheck = calls.find("--tool racecheck"),
               synccheck = calls.find("--tool synccheck");
  ASSERT_NE(synccheck, std::string::npos) << calls;
  EXPECT_LT(memcheck, racecheck);
  EXPECT_LT(racecheck, synccheck);
  EXPECT_EQ(calls.find("--tool initcheck"), std::string::npos) << calls;
}

TEST_F(GpuEvaluatorTest, AllFourToolsCleanLeaveTheVerdictAndSayWhatRan) {
  fake_harness(sanitized_harness());
  fake_sanitizer("");
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, false, true});
  EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
  EXPECT_TRUE(r.verification.sanitized);
  EXPECT_EQ(r.verification.sanitizer_report, "");
  EXPECT_EQ(r.verification.sanitizer_tools,
            (std::vector<std::string>{"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"}));
  EXPECT_EQ(sanitizer_scope(r.verification),
            "memcheck (with leak check), racecheck, synccheck and initcheck, one call each at the smallest and the "
            "largest size set (n=1000, n=5000)");
  // The four ran at once (the default): one run each, in any order, memcheck's options its own.
  std::istringstream calls(read(root_ / "log" / "sanitizer"));
  std::map<std::string, int> runs;
  for (std::string line; std::getline(calls, line);)
    for (const char* tool : {"memcheck", "racecheck", "synccheck", "initcheck"})
      if (line.find(std::string("--tool ") + tool + " ") != std::string::npos) {
        ++runs[tool];
        EXPECT_EQ(line.find("--leak-check") != std::string::npos, std::string(tool) == "memcheck") << line;
      }
  EXPECT_EQ(runs, (std::map<std::string, int>{{"initcheck", 1}, {"memcheck", 1}, {"racecheck", 1}, {"synccheck", 1}}));
  EXPECT_FALSE(fs::exists(root_ / "log" / "sanitized-memcheck-original-1.json")) << "nothing to compare";
}

TEST_F(GpuEvaluatorTest, ALeakPerCallIsFoundByCallingTwiceAndRejected) {
  fake_harness(sanitized_harness());
  // The candidate's library leaks one 4 KiB allocation per call: as many as the job's calls
  // (trials x 2 size sets); the original's, none.
  fake_sanitizer(R"SH(
if [ "$tool" = memcheck ]; then
  leaked=0
  [ "$whose" = candidate ] && leaked=$((trials * 2))
  i=0
  while [ $i -lt $leaked ]; do
    echo "========= Leaked 4,096 bytes at 0x7f00000${i}000"
    echo "=========         Host Frame: launch_scale(float const*, float*, int) [0x9cd7] in libcandidate.so"
    i=$((i + 1))
  done
  echo "========= LEAK SUMMARY: $((leaked * 4096)) bytes leaked in $leaked allocations"
  echo "========= ERROR SUMMARY: $leaked errors"
  [ $leaked -gt 0 ] && exit 86
fi
)SH");
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, false, true});
  EXPECT_EQ(r.verdict, Verdict::rejected) << r.reason;
  EXPECT_NE(r.reason.find("leaked on every call: a second call at each size set left 2 allocations (8,192 bytes) "
                          "more never freed"),
            std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("the original leaves none"), std::string::npos) << r.reason;
  EXPECT_NE(r.verification.sanitizer_report.find("Host Frame: launch_scale"), std::string::npos);
  // The second run is the same job with two calls per size set.
  nlohmann::json twice = nlohmann::json::parse(read(root_ / "log" / "sanitized-memcheck-candidate-2.json"));
  EXPECT_EQ(twice["trials"], 2);
  EXPECT_EQ(twice["size_labels"], nlohmann::json::parse(R"(["n=1000", "n=5000"])"));
  EXPECT_TRUE(fs::exists(root_ / "log" / "sanitized-memcheck-original-1.json"));
  EXPECT_FALSE(fs::exists(root_ / "log" / "sanitized-memcheck-original-2.json")) << "the original leaks nothing";
}

// [verify].persistent_judge: the jobs of one original run in one judge's session (the CUPTI
// metrics too), each candidate library sent as a copy inside the session's directory; another
// original gets another session, and the sessions' directories go with them.
TEST_F(GpuEvaluatorTest, TheJobsOfOneOriginalRunInOneJudgesSession) {
  config_.verify.persistent_judge = true;
  fake_harness(kAcceptingHarness);
  CompiledVariant base, cand, other_base;
  {
    GpuEvaluator evaluator(config_, device_);
    base = evaluator.compile(config_.kernels[0], original());
    cand = evaluator.compile(config_.kernels[0], candidate());
    Variant other = original();
    other.source += "\n// another original\n";
    other_base = evaluator.compile(config_.kernels[0], other);
    ASSERT_TRUE(base.ok && cand.ok && other_base.ok);
    for (int i = 0; i < 2; ++i) {
      EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{true, true, false});
      EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
      EXPECT_NEAR(r.speedup, 1.5, 1e-9);
      EXPECT_EQ(r.candidate_metrics.values.at("sm_throughput_pct"), 77.0);
    }
    EXPECT_EQ(evaluator.profile_baseline(config_.kernels[0], base, false).timings.at(0).baseline.median_us, 12.5);
    EXPECT_EQ(evaluator.profile_baseline(config_.kernels[0], other_base, false).verdict, Verdict::pending);
  }
  // Jobs 0 to 4 (verify_and_time, metrics, verify_and_time, metrics, time_baseline) in the first
  // session, 5 in a second one for the other original.
  ASSERT_EQ(jobs(), 6);
  for (int n : {0, 2}) {
    EXPECT_EQ(job(n)["mode"], "verify_and_time");
    const std::string sent = job(n)["candidate_library"];
    EXPECT_NE(sent, cand.library_path);
    EXPECT_NE(sent.find("-session-"), std::string::npos) << sent;
    EXPECT_NE(sent.find("-libraries/"), std::string::npos) << "outside the directory the candidate may write: " << sent;
    EXPECT_EQ(read(root_ / "log" / ("lib-" + std::to_string(n) + ".so")), read(cand.library_path))
        << "the copy the judge got is the compiled library";
  }
  EXPECT_EQ(job(1)["mode"], "metrics");
  EXPECT_NE(job(1)["candidate_library"].get<std::string>().find("-libraries/"), std::string::npos);
  EXPECT_EQ(job(4)["mode"], "time_baseline");
  EXPECT_EQ(job(5)["baseline_library"], other_base.library_path);
  const std::string calls = read(root_ / "log" / "calls");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 3) << calls;  // calibrate, two sessions
  EXPECT_EQ(calls.rfind("calibrate\nsession ", 0), 0u) << calls;
  EXPECT_TRUE(fs::is_empty(root_ / ".kernelbot" / "work" / "jobs")) << "the sessions' directories are gone";
}

// A library that cannot be staged never reaches the judge: that job is the infrastructure's
// failure, and the session's numbering of the jobs it did receive goes on unbroken.
TEST_F(GpuEvaluatorTest, ALibraryThatCannotBeStagedIsAnInfraErrorAndTheSessionGoesOn) {
  config_.verify.persistent_judge = true;
  fake_harness(kAcceptingHarness);
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  CompiledVariant gone = cand;
  gone.library_path = (root_ / "no-such" / "variant.so").string();
  EXPECT_EQ(evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{}).verdict, Verdict::accepted);
  EvalResult lost = evaluator.evaluate(config_.kernels[0], base, gone, EvalOptions{});
  EXPECT_EQ(lost.verdict, Verdict::infra_error);
  EXPECT_NE(lost.reason.find("cannot copy the candidate's library"), std::string::npos) << lost.reason;
  EvalResult after = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(after.verdict, Verdict::accepted) << after.reason;
  EXPECT_EQ(sessions(), 1u) << read(root_ / "log" / "calls");
}

// A candidate that crashes is a crash as with a one-job judge, and the session goes on; one that
// hangs ends the session (its whole sandbox is killed) and the next job starts a fresh one.
TEST_F(GpuEvaluatorTest, ASessionOutlivesACrashAndIsReplacedAfterAHang) {
  config_.verify.persistent_judge = true;
  fake_harness(R"SH(
case "$n" in
0) echo "kb-harness: candidate crashed: an illegal memory access was encountered (launching the candidate)" >&2
   exit 3 ;;
2) sleep 30 ;;
*) cat > "$out" <<'JSON'
{"verdict":"accepted","reason":"fine","verification":{"passed":true,"trials":5},
 "timings":[{"size_label":"n=1000","speedup":1.5,"significant":true}],"run_s":0.001}
JSON
;;
esac
)SH");
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  EvalResult crashed = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(crashed.verdict, Verdict::crashed);
  EXPECT_EQ(crashed.reason,
            "the candidate crashed: an illegal memory access was encountered (the harness ended with exit code 3)");
  EvalResult fine = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(fine.verdict, Verdict::accepted) << fine.reason;
  EXPECT_GT(fine.phase_s.at("sandbox"), 0) << "what the judge did not time itself";
  const auto start = std::chrono::steady_clock::now();
  EvalResult hung = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(hung.verdict, Verdict::timed_out);
  EXPECT_EQ(hung.reason.rfind("hung: killed after 1.", 0), 0u) << hung.reason;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 6);
  EvalResult after = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
  EXPECT_EQ(after.verdict, Verdict::accepted) << after.reason;
  EXPECT_EQ(sessions(), 2u) << read(root_ / "log" / "calls");
}

// A session's reply without the judge's seal (as a process in the sandbox could write one) is a
// forgery: the job is rejected and the session ends.
TEST_F(GpuEvaluatorTest, AnUnsealedSessionReplyIsAForgeryAndEndsTheSession) {
  config_.verify.persistent_judge = true;
  fake_harness(kAcceptingHarness, /*seal=*/false);
  GpuEvaluator evaluator(config_, device_);
  const CompiledVariant variants[] = {evaluator.compile(config_.kernels[0], original()),
                                      evaluator.compile(config_.kernels[0], candidate())};
  for (const bool seal : {false, true}) {
    fake_harness(kAcceptingHarness, seal);
    EvalResult r = evaluator.evaluate(config_.kernels[0], variants[0], variants[1], EvalOptions{});
    EXPECT_EQ(r.verdict, seal ? Verdict::accepted : Verdict::rejected) << r.reason;
    if (!seal) {
      EXPECT_NE(r.reason.find("seal"), std::string::npos) << r.reason;
    }
  }
  EXPECT_EQ(sessions(), 2u) << "a second session: " << read(root_ / "log" / "calls");
}

// In the namespace sandbox the session's judge can read the candidate's staged library but not
// write beside it: no file planted there, no link for kernelbot's next copy to follow.
TEST_F(GpuEvaluatorTest, TheStagedLibraryIsReadableAndReadOnlyInTheNamespaceSandbox) {
  ASSERT_EQ(namespace_sandbox_problem(), "");
  config_.verify.persistent_judge = true;
  config_.verify.sandbox = "namespaces";
  const fs::path seal_dir = fs::path(KB_SEAL_RESULT).parent_path();
  config_.project.link_libs = {"-L" + seal_dir.string()};  // makes the seal tool visible inside
  fs::create_directories(root_ / "bin");
  write_script(root_ / "bin" / "kernelbot-harness", R"SH(#!/bin/sh
read -r klen <&3
key=$(head -c "$klen" <&3)
seq=0
while read -r len <&3; do
  job=$(head -c "$len" <&3)
  lib=$(printf '%s' "$job" | grep -o '"candidate_library": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/')
  stage=$(dirname "$lib")
  verdict=accepted
  [ -r "$lib" ] || verdict=crashed
  touch "$stage/planted" 2>/dev/null && verdict=wrong_result
  ln -s /tmp "$(dirname "$stage")/next" 2>/dev/null && verdict=wrong_result
  printf '{"seq":%s,"exit_code":0,"result":{"verdict":"%s","reason":"%s","verification":{"passed":true,"trials":5},"timings":[{"size_label":"n=1000","speedup":1.5,"significant":true}]}}' "$seq" "$verdict" "$lib" > /tmp/reply.json
  )SH" + std::string(KB_SEAL_RESULT) + R"SH( "$key" /tmp/reply.json
  reply=$(cat /tmp/reply.json)
  printf '%s
%s' "${#reply}" "$reply" >&4
  seq=$((seq + 1))
done
)SH");
  setenv("KERNELBOT_HARNESS", (root_ / "bin" / "kernelbot-harness").c_str(), 1);
  cache_device_ceilings();
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok && cand.ok) << base.log << cand.log;
  for (int i = 0; i < 2; ++i) {
    EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
    // accepted: readable, nothing planted, no link made (crashed: unreadable; wrong_result: writable)
    EXPECT_EQ(r.verdict, Verdict::accepted) << r.reason;
  }
}

#ifdef KB_HARNESS_BIN
// The real kernelbot-harness --session in bubblewrap, on a machine without a GPU: its reply (the
// judge's own failure, "no CUDA device") comes back on its channel, sealed and numbered, and the
// session ends with it; the next job starts another.
TEST_F(GpuEvaluatorTest, TheRealJudgesSessionRepliesOnItsChannelInTheNamespaceSandbox) {
  ASSERT_EQ(namespace_sandbox_problem(), "");
  config_.verify.persistent_judge = true;
  config_.verify.sandbox = "namespaces";
  setenv("KERNELBOT_HARNESS", KB_HARNESS_BIN, 1);
  cache_device_ceilings();
  GpuEvaluator evaluator(config_, device_);
  auto [base, cand] = compile_both(evaluator);
  ASSERT_TRUE(base.ok && cand.ok);
  for (int i = 0; i < 2; ++i) {
    EvalResult r = evaluator.evaluate(config_.kernels[0], base, cand, EvalOptions{});
    EXPECT_EQ(r.verdict, Verdict::infra_error);
    EXPECT_NE(r.reason.find("(exit code 1)"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("no CUDA device"), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.find("without a result"), std::string::npos) << r.reason;
    EXPECT_TRUE(r.phase_s.count("start")) << "the judge's own result came back: " << r.reason;
  }
}
#endif

}  // namespace
}  // namespace kb::profiler
