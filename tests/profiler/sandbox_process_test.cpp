// The sandbox with real /bin/sh children: limits, kills, scrubbed environment, captured output.
#include "profiler/sandbox/sandbox_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/running_processes.h"

namespace kb::profiler {
namespace {

SandboxCommand shell(const std::string& script, double limit_s = 10) {
  SandboxCommand c;
  c.argv = {"/bin/sh", "-c", script};
  c.limits.wall_time_s = limit_s;
  c.limits.term_grace_s = 0.5;
  return c;
}

// A process is gone once kill(pid, 0) fails or it is a zombie waiting for init.
bool process_gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    auto close = line.rfind(')');
    if (close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Sandbox, CapturesStdoutStderrAndExitCode) {
  auto r = run_sandboxed(shell("echo out-line; echo err-line >&2; exit 7"));
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "out-line\n");
  EXPECT_EQ(r.err, "err-line\n");
  EXPECT_EQ(r.describe(), "exit code 7");
  EXPECT_FALSE(r.succeeded());
}

TEST(Sandbox, HangIsKilledWithinTheLimit) {
  auto start = std::chrono::steady_clock::now();
  // Ignoring SIGTERM forces the SIGKILL after the grace period.
  auto r = run_sandboxed(shell("trap '' TERM; while true; do :; done", 1.0));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(elapsed, 3.0);
  EXPECT_GE(elapsed, 1.0);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos);
}

TEST(Sandbox, CrashIsReportedWithItsSignal) {
  auto r = run_sandboxed(shell("kill -SEGV $$"));
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(Sandbox, EnvironmentIsScrubbed) {
  setenv("GITHUB_TOKEN", "ghp_secret_value", 1);
  setenv("OPENAI_API_KEY", "sk-secret", 1);
  setenv("MY_DB_PASSWORD", "hunter2", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  setenv("CUDA_CACHE_PATH", "/tmp/cudacache", 1);
  setenv("CUDA_SECRET_THING", "x", 1);
  setenv("UNRELATED_SETTING", "y", 1);
  auto c = shell("env");
  c.extra_env["KERNELBOT_PROFILE_OUT"] = "/tmp/x.json";
  auto r = run_sandboxed(c);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("GITHUB_TOKEN"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ghp_secret_value"), std::string::npos);
  EXPECT_EQ(r.out.find("OPENAI_API_KEY"), std::string::npos);
  EXPECT_EQ(r.out.find("sk-secret"), std::string::npos);
  EXPECT_EQ(r.out.find("MY_DB_PASSWORD"), std::string::npos);
  EXPECT_EQ(r.out.find("CUDA_SECRET_THING"), std::string::npos);
  EXPECT_EQ(r.out.find("UNRELATED_SETTING"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA_VISIBLE_DEVICES=0\n"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA_CACHE_PATH=/tmp/cudacache\n"), std::string::npos);
  EXPECT_NE(r.out.find("KERNELBOT_PROFILE_OUT=/tmp/x.json\n"), std::string::npos);
  EXPECT_NE(r.out.find("\nPATH="), std::string::npos);
  for (const char* v : {"GITHUB_TOKEN", "OPENAI_API_KEY", "MY_DB_PASSWORD", "CUDA_VISIBLE_DEVICES", "CUDA_CACHE_PATH",
                        "CUDA_SECRET_THING", "UNRELATED_SETTING"})
    unsetenv(v);
}

TEST(Sandbox, EnvironmentAllowlist) {
  EXPECT_TRUE(env_name_allowed("PATH"));
  EXPECT_TRUE(env_name_allowed("HOME"));
  EXPECT_TRUE(env_name_allowed("LD_LIBRARY_PATH"));
  EXPECT_TRUE(env_name_allowed("LC_ALL"));
  EXPECT_TRUE(env_name_allowed("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(env_name_allowed("GITHUB_TOKEN"));
  EXPECT_FALSE(env_name_allowed("GITHUB_WORKSPACE"));
  EXPECT_FALSE(env_name_allowed("OPENAI_API_KEY"));
  EXPECT_FALSE(env_name_allowed("CUDA_API_KEY"));
  EXPECT_FALSE(env_name_allowed("CUDA_token"));
  EXPECT_FALSE(env_name_allowed("AWS_SECRET_ACCESS_KEY"));
  EXPECT_FALSE(env_name_allowed("SSH_AUTH_SOCK"));
  EXPECT_FALSE(env_name_allowed("LD_PRELOAD"));
}

TEST(Sandbox, UnscrubbedKeepsTheParentEnvironment) {
  setenv("KB_SANDBOX_TEST_VALUE", "kept", 1);
  auto c = shell("echo $KB_SANDBOX_TEST_VALUE");
  c.scrub_env = false;
  EXPECT_EQ(run_sandboxed(c).out, "kept\n");
  c.scrub_env = true;
  EXPECT_EQ(run_sandboxed(c).out, "\n");
  unsetenv("KB_SANDBOX_TEST_VALUE");
}

TEST(Sandbox, ChildrenOfTheChildAreKilledWhenItExits) {
  auto r = run_sandboxed(shell("sleep 1000 & echo $!"));
  ASSERT_EQ(r.exit_code, 0);
  pid_t grandchild = std::atoi(r.out.c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(process_gone(grandchild)) << "grandchild " << grandchild << " survived";
}

TEST(Sandbox, ChildrenOfAHungChildAreKilledToo) {
  auto start = std::chrono::steady_clock::now();
  auto r = run_sandboxed(shell("sleep 1000 & echo $!; wait", 1.0));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0);
  pid_t grandchild = std::atoi(r.out.c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(process_gone(grandchild));
}

// A child that leaves the process group (setsid) holding the output pipes, under a shell that
// dies at SIGTERM and under one that ignores it: the limit ends every process of the tree, and
// the pipes it held do not keep the caller waiting.
TEST(Sandbox, ProcessesThatLeaveTheGroupDieAtTheLimit) {
  for (const char* shell_end : {"sleep 1000", "trap '' TERM; while :; do :; done"}) {
    SCOPED_TRACE(shell_end);
    const auto start = std::chrono::steady_clock::now();
    auto r = run_sandboxed(shell(std::string("setsid sleep 1000 & echo $!; ") + shell_end, 1.0));
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0);
    const pid_t escaped = std::atoi(r.out.c_str());
    ASSERT_GT(escaped, 0) << r.out;
    EXPECT_TRUE(process_gone(escaped)) << "the process in its own session survived";
  }
}

// The same in the namespace sandbox, where bwrap's init runs in a session of its own (a kill of
// the child's process group reaches only the outer bwrap): nothing of it runs after the limit.
TEST(Sandbox, NamespaceSandboxEndsEveryProcessAtTheLimit) {
  ASSERT_EQ(namespace_sandbox_problem(), "");
  const std::string marker = "1000." + std::to_string(getpid());
  for (const char* shell_end : {"sleep 1000", "trap '' TERM; while :; do :; done"}) {
    SCOPED_TRACE(shell_end);
    SandboxCommand c = shell("setsid sleep " + marker + " & sleep " + marker + " & " + shell_end, 1.0);
    c.kind = SandboxKind::namespaces;
    const auto start = std::chrono::steady_clock::now();
    auto r = run_sandboxed(c);
    EXPECT_TRUE(r.timed_out) << r.describe() << r.err;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0);
    EXPECT_EQ(test::processes_left_with(marker), 0) << "processes of the sandbox survived its limit";
  }
}

TEST(Sandbox, StdinIsDevNull) {
  auto r = run_sandboxed(shell("cat; echo done"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "done\n");
}

TEST(Sandbox, OutputIsBoundedKeepingHeadAndTail) {
  auto c = shell(
      "echo FIRST; i=0; while [ $i -lt 20000 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done; echo LAST");
  c.limits.max_output_bytes = 8192;
  auto r = run_sandboxed(c);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out_truncated);
  EXPECT_LT(r.out.size(), 8192u + 100);
  EXPECT_EQ(r.out.rfind("FIRST", 0), 0u);
  EXPECT_NE(r.out.find("LAST\n"), std::string::npos);
  EXPECT_NE(r.out.find("bytes omitted"), std::string::npos);
}

TEST(Sandbox, FileSizeIsLimited) {
  auto dir = std::filesystem::temp_directory_path() / ("kb-sandbox-fsize-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto c = shell("head -c 3000000 /dev/zero > big.bin");
  c.working_dir = dir;
  c.limits.max_file_mb = 1;
  auto r = run_sandboxed(c);
  EXPECT_FALSE(r.succeeded());
  EXPECT_LE(std::filesystem::file_size(dir / "big.bin"), 1024u * 1024u);
  std::filesystem::remove_all(dir);
}

TEST(Sandbox, CoreDumpsAreOff) {
  auto r = run_sandboxed(shell("ulimit -c"));
  EXPECT_EQ(r.out, "0\n");
}

TEST(Sandbox, RunsInTheGivenDirectoryInItsOwnSession) {
  auto c = shell("pwd; ps -o sid= -p $$; echo $$");
  c.working_dir = "/tmp";
  auto r = run_sandboxed(c);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string pwd, sid, pid;
  std::getline(lines, pwd);
  std::getline(lines, sid);
  std::getline(lines, pid);
  EXPECT_EQ(pwd, "/tmp");
  EXPECT_EQ(std::atoi(sid.c_str()), std::atoi(pid.c_str())) << "the child leads its own session";
}

TEST(Sandbox, MemoryHogIsKilled) {
  SandboxCommand c;
  c.argv = {KB_SANDBOX_PROBE, "alloc", "400"};
  c.limits.wall_time_s = 20;
  c.limits.max_rss_mb = 100;
  auto start = std::chrono::steady_clock::now();
  auto r = run_sandboxed(c);
  EXPECT_TRUE(r.killed_for_memory) << r.describe();
  EXPECT_GT(r.peak_rss_mb, 100);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_NE(r.describe().find("host memory"), std::string::npos);

  c.limits.max_rss_mb = 0;  // unlimited: the same child runs until its own end (cut short here)
  c.argv = {KB_SANDBOX_PROBE, "sleep", "0"};
  EXPECT_TRUE(run_sandboxed(c).succeeded());
}

TEST(Sandbox, MissingExecutableDoesNotStart) {
  SandboxCommand c;
  c.argv = {"kb-no-such-program-xyz"};
  auto r = run_sandboxed(c);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("not found"), std::string::npos);
}

TEST(Sandbox, ManyConcurrentChildren) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      auto r = run_sandboxed(shell("echo " + std::to_string(i)));
      if (r.exit_code == 0 && r.out == std::to_string(i) + "\n") ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
}

}  // namespace
}  // namespace kb::profiler
