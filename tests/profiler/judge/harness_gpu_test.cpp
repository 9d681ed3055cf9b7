// kernelbot-harness on the GPU: real jobs over the variant libraries built from
// variants/test_variants.cu, checked through the harness's exit code, stderr and result JSON.
// KB_RUNNER_TEST_DIR, when set, holds kernelbot-harness and variants/ (a copied build).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/frame_io.h"
#include "common/sealed_text.h"
#include "core/harness_job.h"
#include "profiler/judge/session/session_sweep.h"

namespace kb {
namespace {

using nlohmann::json;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string test_dir_override() {
  const char* dir = std::getenv("KB_RUNNER_TEST_DIR");
  return dir ? dir : "";
}

std::string harness_path() {
  const std::string dir = test_dir_override();
  return dir.empty() ? KB_HARNESS_EXE : dir + "/kernelbot-harness";
}

std::string variant(const std::string& name) {
  const std::string dir = test_dir_override();
  return (dir.empty() ? std::string(KB_VARIANT_DIR) : dir + "/variants") + "/libkbtest_" + name + ".so";
}

struct HarnessRun {
  int exit_code = -1;
  std::string err;
  json result;
};

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("kb_harness_gpu_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

HarnessRun run_args(const std::string& args, const std::string& tag) {
  const fs::path out = scratch() / (tag + ".result.json"), err = scratch() / (tag + ".stderr");
  fs::remove(out);
  const std::string cmd = "'" + harness_path() + "' " + args + " --out '" + out.string() + "' 2> '" + err.string() +
                          "'";
  const int status = std::system(cmd.c_str());
  HarnessRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = read_file(err);
  if (fs::exists(out)) r.result = json::parse(read_file(out));
  return r;
}

HarnessRun run_job(const HarnessJob& job, const std::string& tag) {
  const fs::path path = scratch() / (tag + ".job.json");
  std::ofstream(path) << json(job).dump(2);
  return run_args("--job '" + path.string() + "'", tag);
}

// A fast bench: these tests check behaviour, not precision.
HarnessBench quick_bench() {
  HarnessBench b;
  b.warmup_runs = 2;
  b.min_time_s = 0.02;
  b.min_samples = 10;
  b.max_samples = 200;
  b.max_noise = 0.01;
  b.timeout_s = 5;
  return b;
}

HarnessJob saxpy_job(const std::string& base, const std::string& cand, std::vector<int64_t> sizes) {
  HarnessJob job;
  job.kernel = "saxpy";
  job.baseline_library = variant(base);
  job.candidate_library = cand.empty() ? "" : variant(cand);
  HarnessArg x{"x", ArgRole::input, DType::float32, {}, {}, "", 0, 0, "", {}};
  HarnessArg y{"y", ArgRole::inout, DType::float32, {}, {}, "", 1e-4, 1e-5, "", {}};
  HarnessArg a{"a", ArgRole::scalar, DType::float32, {}, {}, "", 0, 0, "", {}};
  HarnessArg n{"n", ArgRole::size, DType::int32, {}, {}, "", 0, 0, "", {}};
  for (int64_t s : sizes) {
    job.size_labels.push_back("n=" + std::to_string(s));
    x.counts.push_back(s);
    y.counts.push_back(s);
    a.values.push_back("");  // a random scalar every trial
    n.values.push_back(std::to_string(s));
    job.bytes.push_back(12.0 * static_cast<double>(s));
    job.flops.push_back(2.0 * static_cast<double>(s));
  }
  job.args = {x, y, a, n};
  job.trials = 3;
  job.seed = 1234;
  job.bench = quick_bench();
  return job;
}

HarnessJob scale_job(const std::string& base, const std::string& cand, int64_t size) {
  HarnessJob job;
  job.kernel = "scale";
  job.mode = JobMode::verify;
  job.baseline_library = variant(base);
  job.candidate_library = variant(cand);
  job.size_labels = {"n=" + std::to_string(size)};
  job.args = {{"in", ArgRole::input, DType::float32, {size}, {}, "", 0, 0, "", {}},
              {"out", ArgRole::output, DType::float32, {size}, {}, "", 1e-4, 1e-5, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {std::to_string(size)}, "", 0, 0, "", {}}};
  job.trials = 2;
  job.bench = quick_bench();
  return job;
}

std::string reason(const HarnessRun& r) { return r.result.value("reason", std::string()); }
std::string verdict(const HarnessRun& r) { return r.result.value("verdict", std::string()); }

// A judge's session (--session DIR) driven as kernelbot drives it: its channel on descriptors 3
// (jobs) and 4 (replies), the key as the first frame, each reply sealed with it and numbered; its
// stderr in a file, DIR its working directory.
class JudgeSession {
 public:
  explicit JudgeSession(const fs::path& dir) {
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    const std::string harness = harness_path(), err = (dir.parent_path() / "session.stderr").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      if (::dup2(in[0], 3) < 0 || ::dup2(out[1], 4) < 0) ::_exit(126);
      if (FILE* f = std::freopen(err.c_str(), "w", stderr); !f) ::_exit(126);
      if (FILE* f = std::freopen("/dev/null", "r", stdin); !f) ::_exit(126);
      ::dup2(2, 1);
      ::close_range(5, ~0U, 0);
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      ::execl(harness.c_str(), harness.c_str(), "--session", dir.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
    EXPECT_TRUE(write_frame(in_, key_));
  }
  ~JudgeSession() {
    if (pid_ > 0) close();
  }
  // The reply to `job` (the sealed text, checked and parsed), or null.
  json run(const HarnessJob& job) {
    std::string frame;
    if (!write_frame(in_, json(job).dump()) || !read_frame(out_, frame, 256u << 20)) return json();
    const std::optional<std::string> text = open_sealed(key_, frame);
    EXPECT_TRUE(text) << "the reply's seal verifies";
    json reply = json::parse(text.value_or("{}"));
    EXPECT_EQ(reply.at("seq"), seq_++);
    return reply;
  }
  int close() {
    ::close(in_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ::close(out_);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  const std::string key_ = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  uint64_t seq_ = 0;
};

// Live processes named as the leaver variant names its daemon. A zombie is dead: one the control
// run's daemon leaves, once killed, stays until the machine's init reaps it (a container's init
// may never do that).
std::vector<pid_t> leftovers() {
  std::vector<pid_t> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    if (read_file(e.path() / "comm") != "kb-leftover\n") continue;
    const std::string stat = read_file(e.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

void kill_leftovers() {
  for (pid_t p : leftovers()) ::kill(p, SIGKILL);
}

// The session's servers once it has started its spares for the next job (it does that after
// sending a reply, so they may still be starting when the reply is read).
constexpr size_t kSpares = 2;
std::vector<pid_t> servers_with_spares(pid_t session, size_t expected) {
  std::vector<pid_t> kids = judge::child_processes(session);
  for (int i = 0; i < 250 && kids.size() < expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kids = judge::child_processes(session);
  }
  return kids;
}

bool contains(const std::vector<pid_t>& pids, pid_t p) { return std::find(pids.begin(), pids.end(), p) != pids.end(); }

// The process started first (the kept original: spares are started after its job began).
pid_t oldest(const std::vector<pid_t>& pids) {
  auto start_time = [](pid_t p) {
    const std::string stat = read_file("/proc/" + std::to_string(p) + "/stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
    }
    return std::stoull(field);  // field 22: the start time, in clock ticks since boot
  };
  return *std::min_element(pids.begin(), pids.end(), [&](pid_t a, pid_t b) { return start_time(a) < start_time(b); });
}

TEST(HarnessGpu, ASessionKeepsTheOriginalAndClearsWhatEachCandidateLeft) {
  kill_leftovers();
  HarnessJob leaver = saxpy_job("saxpy_ok", "saxpy_leaver", {1 << 20});
  leaver.mode = JobMode::verify;
  // The control: after a one-job judge nothing sweeps, and the leaver's daemon lives on.
  const HarnessRun control = run_job(leaver, "leaver-one-job");
  EXPECT_EQ(control.exit_code, 0) << control.err;
  EXPECT_FALSE(leftovers().empty()) << "the leaver variant left no daemon: the test would prove nothing";
  kill_leftovers();

  const fs::path dir = scratch() / "session";
  fs::create_directories(dir);
  JudgeSession session(dir);
  const json left = session.run(leaver);
  ASSERT_TRUE(left.is_object()) << read_file(scratch() / "session.stderr");
  EXPECT_EQ(left["exit_code"], 0);
  EXPECT_EQ(left["result"]["verdict"], "pending") << left.dump();
  for (pid_t p : leftovers())
    ADD_FAILURE() << "the daemon outlived its job: " << read_file("/proc/" + std::to_string(p) + "/stat");
  EXPECT_TRUE(fs::is_empty(dir)) << "left-behind.txt was not cleared";
  // The original's server and the spares started for the next job, nothing else. The spares the
  // first job took (started with the session) served it and ended with it.
  const std::vector<pid_t> after_leaver = servers_with_spares(session.pid(), 1 + kSpares);
  ASSERT_EQ(after_leaver.size(), 1 + kSpares) << "the original's server and the spares, and nothing else";

  HarnessJob timed = saxpy_job("saxpy_ok", "saxpy_ok", {4 << 20});
  const json first = session.run(timed);
  EXPECT_EQ(first["exit_code"], 0);
  EXPECT_EQ(first["result"]["verdict"], "not_faster") << first.dump();
  const std::vector<pid_t> after_first = servers_with_spares(session.pid(), 1 + kSpares);
  ASSERT_EQ(after_first.size(), 1 + kSpares) << "the original's server, the spare left and one new spare";
  std::vector<pid_t> kept;  // kept from one job to the next: the original's server and the spare not taken
  for (pid_t p : after_leaver)
    if (contains(after_first, p)) kept.push_back(p);
  EXPECT_EQ(kept.size(), 2u) << "the original's server was kept, the candidate's spare ended with its job";

  // A candidate runs as the same user: it can stop or kill every server waiting beside it. The
  // next job must still be judged right, with fresh servers where the waiting ones are gone.
  for (pid_t p : after_first) ::kill(p, SIGSTOP);
  const json stopped = session.run(timed);
  EXPECT_EQ(stopped["exit_code"], 0);
  EXPECT_EQ(stopped["result"]["verdict"], "not_faster") << "after the servers were stopped: " << stopped.dump();
  for (pid_t p : servers_with_spares(session.pid(), 1 + kSpares)) ::kill(p, SIGKILL);
  const json killed = session.run(timed);
  EXPECT_EQ(killed["exit_code"], 0);
  EXPECT_EQ(killed["result"]["verdict"], "not_faster") << "after the servers were killed: " << killed.dump();

  HarnessJob metrics = saxpy_job("saxpy_ok", "saxpy_ok", {1 << 20});
  metrics.mode = JobMode::metrics;
  const std::vector<pid_t> before_metrics = servers_with_spares(session.pid(), 1 + kSpares);
  ASSERT_EQ(before_metrics.size(), 1 + kSpares);
  const pid_t original_before_metrics = oldest(before_metrics);  // read now: it ends with the job
  const json counted = session.run(metrics);
  EXPECT_EQ(counted["exit_code"], 0);
  EXPECT_THAT(counted["result"]["candidate_metrics"].value("status", std::string()), HasSubstr("ok")) << counted.dump();
  const std::vector<pid_t> after_metrics = servers_with_spares(session.pid(), kSpares);
  EXPECT_EQ(after_metrics.size(), kSpares) << "after CUPTI metrics the original is not kept, only spares wait";
  EXPECT_FALSE(contains(after_metrics, original_before_metrics)) << "the original's server of the metrics job was kept";

  HarnessJob crash = saxpy_job("saxpy_ok", "saxpy_crash", {1 << 20});
  crash.mode = JobMode::verify;
  const json crashed = session.run(crash);
  EXPECT_EQ(crashed["exit_code"], 3);
  EXPECT_EQ(crashed["result"]["verdict"], "crashed");

  // The session goes on after the crash, with a fresh original (the crash took both servers).
  const json again = session.run(timed);
  EXPECT_EQ(again["exit_code"], 0);
  EXPECT_EQ(again["result"]["verdict"], "not_faster") << again.dump();
  EXPECT_GT(again["result"]["phase_s"]["timing"].get<double>(), 0);
  EXPECT_EQ(session.close(), 0);
  EXPECT_THAT(read_file(scratch() / "session.stderr"), HasSubstr("candidate crashed: an illegal memory access"));
}

TEST(HarnessGpu, CorrectCandidatePassesEveryCheckAndIsTimedInterleaved) {
  // Sizes whose kernels take well over graph_below_us (10 us): one launch per sample.
  const HarnessRun r = run_job(saxpy_job("saxpy_ok", "saxpy_ptds", {4 << 20, 4000037}), "correct");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "not_faster") << reason(r);
  const json& v = r.result.at("verification");
  EXPECT_TRUE(v.at("passed").get<bool>()) << v.dump(2);
  EXPECT_EQ(v.at("trials"), 3);
  // 3 trials x 2 sizes, then one seed or more for each pass that draws fresh inputs (the stream,
  // graph, ledger, slice and concurrent-caller passes), every one distinct.
  const auto seeds = v.at("seeds").get<std::vector<uint64_t>>();
  EXPECT_GT(seeds.size(), 6u);
  EXPECT_EQ(std::set<uint64_t>(seeds.begin(), seeds.end()).size(), seeds.size());
  EXPECT_EQ(v.at("sizes").size(), 2u);
  EXPECT_GE(v.at("distributions").size(), 3u);
  ASSERT_EQ(v.at("outputs").size(), 1u);
  EXPECT_EQ(v.at("outputs")[0].at("name"), "y");
  EXPECT_EQ(v.at("outputs")[0].at("mismatches"), 0);
  // Every element compared counts: at least 3 trials and the state-independence calls 2 and 3 at
  // both sizes, and the three alignment cases at the smallest (special values keep their errors
  // apart), and whole calls of passes beside them (on an H200, 2026-11-29: two more at both sizes).
  const int64_t at_least = (3 + 2) * ((4 << 20) + 4000037) + 3 * 4000037;
  EXPECT_GE(v.at("outputs")[0].at("elements").get<int64_t>(), at_least);
  EXPECT_EQ((v.at("outputs")[0].at("elements").get<int64_t>() - at_least) % ((4 << 20) + 4000037), 0)
      << "whole calls at both sizes";
  ASSERT_EQ(r.result.at("timings").size(), 2u);
  for (const json& t : r.result.at("timings")) {
    for (const char* who : {"baseline", "candidate"}) {
      const json& s = t.at(who);
      EXPECT_GE(s.at("samples").get<int>(), 10) << s.dump();
      EXPECT_GT(s.at("median_us").get<double>(), 0);
      EXPECT_LE(s.at("q1_us").get<double>(), s.at("median_us").get<double>());
      EXPECT_LE(s.at("median_us").get<double>(), s.at("q3_us").get<double>());
      EXPECT_FALSE(s.at("stop_reason").get<std::string>().empty());
      EXPECT_GT(s.at("cupti_span_us").get<double>(), 0);
      EXPECT_EQ(s.at("launches_per_sample"), 1);
      if (s.at("sm_clock_mhz").get<double>() == 0) {
        EXPECT_THAT(s.at("notes").get<std::string>(), HasSubstr("NVML"));
      }
    }
    EXPECT_NEAR(t.at("speedup").get<double>(), 1.0, 0.25);
    EXPECT_GT(t.at("bytes_moved").get<double>(), 0);
    // The judge checked every candidate sample's outputs, and timed a batch with its own clock.
    EXPECT_GE(t.at("checked_samples").get<int64_t>(), t.at("candidate").at("samples").get<int64_t>()) << t.dump();
    EXPECT_GE(t.at("wall_clock_calls").get<int>(), 1);
    EXPECT_GT(t.at("candidate_wall_us").get<double>(), 0.5 * t.at("candidate").at("median_us").get<double>());
  }
  EXPECT_TRUE(v.at("deterministic_checked").get<bool>());
}

TEST(HarnessGpu, StrictVerificationTriplesTheTrials) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_ptds", {4096, 1000});
  job.mode = JobMode::verify;
  job.trials = 2;
  job.strict = true;
  const HarnessRun r = run_job(job, "strict");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "pending") << reason(r);
  const json& v = r.result.at("verification");
  EXPECT_TRUE(v.at("strict_pass").get<bool>());
  EXPECT_EQ(v.at("trials"), 6);
  EXPECT_GT(v.at("seeds").size(), 12u);         // 6 trials x 2 sizes, then the passes' (as above)
  EXPECT_EQ(v.at("distributions").size(), 6u);  // every distribution of the default list was drawn
}

TEST(HarnessGpu, FasterCandidateIsAcceptedAsSignificant) {
  HarnessJob job = saxpy_job("saxpy_slow", "saxpy_ok", {16 << 20});
  job.copy_bandwidth_gbps = 3000;
  job.fp32_tflops = 60;
  const HarnessRun r = run_job(job, "faster");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "accepted") << reason(r);
  const json& t = r.result.at("timings")[0];
  EXPECT_TRUE(t.at("significant").get<bool>());
  EXPECT_GT(t.at("speedup").get<double>(), 1.5);
  EXPECT_GT(t.at("floor_us").get<double>(), 0);
  EXPECT_GT(t.at("candidate_pct_of_floor").get<double>(), t.at("baseline_pct_of_floor").get<double>());
  EXPECT_GT(r.result.at("speedup").get<double>(), 1.5);
}

TEST(HarnessGpu, WrongValuesAreReportedWithWorstElementAndTolerance) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_wrong", {1 << 20});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "wrong");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "wrong_result");
  EXPECT_THAT(reason(r), HasSubstr("elements differ, worst abs error"));
  EXPECT_THAT(reason(r), HasSubstr("tolerance rtol 0.0001 atol 1e-05"));
  EXPECT_THAT(reason(r), HasSubstr("trial 1 of 3 at size n=1048576"));
  EXPECT_FALSE(r.result.at("verification").at("passed").get<bool>());
}

TEST(HarnessGpu, RightAtOneSizeOnlyFailsAtTheOther) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_tail", {1 << 20, 1000003});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "tail");
  EXPECT_EQ(verdict(r), "wrong_result");
  EXPECT_THAT(reason(r), HasSubstr("at size n=1000003"));
}

TEST(HarnessGpu, WorkOnAStreamTheCallerDoesNotWaitForIsRejected) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_sidestream", {1 << 20});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "sidestream");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "rejected") << reason(r);
  EXPECT_THAT(reason(r), HasSubstr("does work on a stream the caller does not wait for: kernel"));
  EXPECT_THAT(reason(r), HasSubstr("spin_then_saxpy"));
}

TEST(HarnessGpu, ReplayingTheFirstAnswerFailsTheSecondTrial) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_cache", {1 << 20});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "cache");
  EXPECT_EQ(verdict(r), "wrong_result");
  EXPECT_THAT(reason(r), HasSubstr("trial 2 of 3"));
}

TEST(HarnessGpu, ModifyingAnInputIsCaught) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_modinput", {1 << 20});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "modinput");
  EXPECT_EQ(verdict(r), "wrong_result");
  EXPECT_THAT(reason(r), HasSubstr("input x was modified by the candidate"));
}

TEST(HarnessGpu, OutputsLeftUnwrittenAreCaught) {
  const HarnessRun ok = run_job(scale_job("scale_ok", "scale_ok", 100000), "scale_ok");
  EXPECT_EQ(verdict(ok), "pending") << reason(ok);
  EXPECT_TRUE(ok.result.at("verification").at("passed").get<bool>());
  const HarnessRun r = run_job(scale_job("scale_ok", "scale_partial", 100000), "scale_partial");
  EXPECT_EQ(verdict(r), "wrong_result");
  EXPECT_THAT(reason(r), HasSubstr("output out was not fully written: 1024 of 100000 elements still hold the poison"));
}

TEST(HarnessGpu, IllegalAddressEndsTheRunWithExitCodeThreeAndAClearLine) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_crash", {1 << 20});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "crash");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("kb-harness: candidate crashed: an illegal memory access was encountered "
                               "(cudaErrorIllegalAddress)"));
  EXPECT_THAT(r.err, HasSubstr("during verification trial 1 of 3 at size n=1048576"));
  EXPECT_EQ(verdict(r), "crashed");
}

TEST(HarnessGpu, ALauncherCallingExitIsACrashNotASuccess) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_exit", {4096});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "exit");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("candidate crashed: it called exit()"));
}

TEST(HarnessGpu, ALaunchTheDriverRefusesIsACrashedVerdictWithExitZero) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_badlaunch", {4096});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "badlaunch");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "crashed");
  EXPECT_THAT(reason(r), HasSubstr("at launch during verification trial 1"));  // CUDA 13: cudaErrorInvalidValue
}

TEST(HarnessGpu, ACrashingBaselineIsNotBlamedOnTheCandidate) {
  HarnessJob job = saxpy_job("saxpy_crash", "saxpy_ok", {4096});
  job.mode = JobMode::verify;
  const HarnessRun r = run_job(job, "basecrash");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr("kb-harness: baseline crashed:"));
  EXPECT_EQ(verdict(r), "infra_error");
}

TEST(HarnessGpu, ShortKernelsAreTimedSeveralLaunchesPerSample) {
  HarnessJob job = saxpy_job("saxpy_ok", "", {4096});
  job.mode = JobMode::time_baseline;
  const HarnessRun legacy = run_job(job, "short_legacy");
  ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
  const json& l = legacy.result.at("timings")[0].at("baseline");
  EXPECT_GT(l.at("launches_per_sample").get<int>(), 1) << l.dump();
  EXPECT_THAT(l.at("notes").get<std::string>(), HasSubstr("back-to-back launches per sample"));
  EXPECT_FALSE(l.at("l2_flushed").get<bool>());

  job.baseline_library = variant("saxpy_ptds");
  const HarnessRun ptds = run_job(job, "short_ptds");
  ASSERT_EQ(ptds.exit_code, 0) << ptds.err;
  const json& p = ptds.result.at("timings")[0].at("baseline");
  EXPECT_GT(p.at("launches_per_sample").get<int>(), 1) << p.dump();
  EXPECT_THAT(p.at("notes").get<std::string>(), HasSubstr("timed as a CUDA graph of"));
  EXPECT_THAT(p.at("notes").get<std::string>(), Not(HasSubstr("back-to-back")));

  // Compared with each other, both are timed the same way (a graph for one only would fake a
  // speedup from the shorter gaps between graph launches).
  HarnessJob pair = saxpy_job("saxpy_ok", "saxpy_ptds", {4096});
  const HarnessRun both = run_job(pair, "short_pair");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const json& t = both.result.at("timings")[0];
  EXPECT_EQ(t.at("baseline").at("launches_per_sample"), t.at("candidate").at("launches_per_sample"));
  EXPECT_THAT(t.at("candidate").at("notes").get<std::string>(), HasSubstr("back-to-back"));
  EXPECT_NEAR(t.at("speedup").get<double>(), 1.0, 0.1);
}

TEST(HarnessGpu, MetricsModeCollectsHardwareCountersAndKernelResources) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_slow", {16 << 20});
  job.mode = JobMode::metrics;
  const HarnessRun r = run_job(job, "metrics");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json& m = r.result.at("baseline_metrics");
  const std::string status = m.at("status");
  ASSERT_THAT(status, AnyOf(HasSubstr("ok"), HasSubstr("insufficient privileges"))) << m.dump(2);
  EXPECT_EQ(m.at("size_label"), "n=16777216");
  EXPECT_GT(m.at("registers_per_thread").get<int>(), 0);
  EXPECT_THAT(m.at("kernel_name").get<std::string>(), HasSubstr("saxpy"));
  if (status.rfind("ok", 0) == 0) {
    const json& v = m.at("values");
    EXPECT_GT(v.at("duration_us").get<double>(), 10);
    EXPECT_GT(v.at("dram_bytes_read").get<double>(), 1.0e8);                       // x and y: 128 MiB
    EXPECT_NEAR(v.at("global_load_sectors_per_request").get<double>(), 4.0, 0.5);  // coalesced float loads
    const json& slow = r.result.at("candidate_metrics").at("values");
    EXPECT_GT(slow.at("global_load_sectors_per_request").get<double>(), 16.0);  // 32 lanes, 32 sectors
  }
}

// The winner's counters after a search: the candidate alone, the original's taken at the search's
// start. The original's server still lends the buffers; its counters are not taken again.
TEST(HarnessGpu, MetricsModeCountsTheCandidateAloneWhenAsked) {
  HarnessJob job = saxpy_job("saxpy_ok", "saxpy_slow", {16 << 20});
  job.mode = JobMode::metrics;
  job.metrics_of_original = false;
  const HarnessRun r = run_job(job, "metrics-candidate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.result.at("baseline_metrics").at("status"), "not counted in this job");
  EXPECT_TRUE(r.result.at("baseline_metrics").at("values").empty());
  const json& m = r.result.at("candidate_metrics");
  const std::string status = m.at("status");
  ASSERT_THAT(status, AnyOf(HasSubstr("ok"), HasSubstr("insufficient privileges"))) << m.dump(2);
  EXPECT_EQ(m.at("size_label"), "n=16777216");
  if (status.rfind("ok", 0) == 0)
    EXPECT_GT(m.at("values").at("global_load_sectors_per_request").get<double>(), 16.0);  // the slow one's
}

TEST(HarnessGpu, CalibrationMeasuresBothCeilings) {
  const HarnessRun r = run_args("--calibrate --device 0", "calibrate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.result.at("copy_bandwidth_gbps").get<double>(), 500);
  EXPECT_GT(r.result.at("fp32_tflops").get<double>(), 5);
  EXPECT_GT(r.result.at("sm_count").get<int>(), 0);
  EXPECT_FALSE(r.result.at("name").get<std::string>().empty());
}

TEST(HarnessGpu, UnusableInputsAreUsageErrorsOrVerdicts) {
  HarnessJob bad = saxpy_job("saxpy_ok", "saxpy_ok", {4096});
  bad.args[0].counts.clear();
  EXPECT_EQ(run_job(bad, "badjob").exit_code, 2);
  HarnessJob missing = saxpy_job("saxpy_ok", "does_not_exist", {4096});
  const HarnessRun r = run_job(missing, "missing");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(verdict(r), "compile_error");
  EXPECT_THAT(reason(r), HasSubstr("cannot be loaded"));
}

}  // namespace
}  // namespace kb
