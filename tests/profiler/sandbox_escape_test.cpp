// The escapes a hostile candidate tried (issue #11), each run by a probe program through the same
// launcher and the same view the harness gets (harness_view), and each checked on the host side:
// the file that must not appear, the listener that must get no connection, the process that
// must be gone. Where a check could pass for the wrong reason, the process sandbox is run as a
// control that shows the probe does succeed without namespaces.
//
// The namespace sandbox must work where these tests run (CI runs as root, where bubblewrap
// does): when it cannot, the tests fail with namespace_sandbox_problem()'s advice, never skip.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/secret_redactor.h"
#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include "profiler/sandbox/sandbox_launcher.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace {
namespace fs = std::filesystem;

// Set by ctest (tests/profiler/CMakeLists.txt) in this process's initial environment, which is
// what /proc/<pid>/environ shows: setenv() here would not put it there.
constexpr const char* kParentSecretVar = "KB_PROBE_PARENT_TOKEN";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Pids of live (not zombie) processes whose command line contains `needle`.
std::vector<pid_t> processes_with(const std::string& needle) {
  std::vector<pid_t> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::string cmdline = slurp(e.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    const std::string stat = slurp(e.path() / "stat");
    const size_t close = stat.rfind(')');
    const bool zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    if (!zombie && cmdline.find(needle) != std::string::npos && std::atoi(name.c_str()) != getpid())
      found.push_back(std::atoi(name.c_str()));
  }
  return found;
}

std::vector<pid_t> survivors(const std::string& needle) {
  std::vector<pid_t> alive;
  for (int i = 0; i < 250; ++i) {  // up to 5 s (a loaded machine) for the namespace's teardown
    alive = processes_with(needle);
    if (alive.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return alive;
}

class SandboxEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(namespace_sandbox_problem(), "") << "the namespace sandbox must work where the tests run";
    dir_ = fs::temp_directory_path() / ("kb-escape-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "repo";
    job_ = repo_ / ".kernelbot" / "work" / "jobs" / "job-1";
    fs::create_directories(repo_ / ".git" / "hooks");
    fs::create_directories(repo_ / "src");
    fs::create_directories(job_);
    std::ofstream(repo_ / ".git" / "config") << "[http]\n\textraheader = AUTHORIZATION: " << marker_ << "\n";
    std::ofstream(repo_ / "src" / "kernel.cu") << "// the original\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The harness's view with the repository's root visible too (a kernel whose source lies at the
  // root): .git and .kernelbot must be masked inside it.
  SandboxCommand probe(const std::vector<std::string>& args, SandboxKind kind = SandboxKind::namespaces) const {
    SandboxCommand c;
    c.argv = {KB_SANDBOX_PROBE};
    c.argv.insert(c.argv.end(), args.begin(), args.end());
    c.working_dir = job_;
    c.kind = kind;
    c.view = harness_view(KB_SANDBOX_PROBE, job_, {}, {}, repository_secrets(repo_));
    c.view.read_only.push_back(repo_);
    c.limits.wall_time_s = 20;
    c.limits.term_grace_s = 0.5;
    return c;
  }

  fs::path dir_, repo_, job_;
  const std::string marker_ = "kbprobe-marker-" + std::to_string(getpid());
};

TEST_F(SandboxEscape, ParentEnvironmentIsNeitherInheritedNorReadable) {
  const char* secret = std::getenv(kParentSecretVar);
  ASSERT_TRUE(secret && *secret) << kParentSecretVar << " is set by ctest; run this test through ctest";
  ASSERT_NE(slurp("/proc/self/environ").find(secret), std::string::npos) << "the secret must be in our /proc entry";

  auto inherited = run_sandboxed(probe({"getenv", kParentSecretVar}));
  EXPECT_EQ(inherited.out, "(unset)\n");

  // In the namespace sandbox the parent is not even in the pid namespace; every environ the
  // probe can read is its own sandbox's.
  auto ns = run_sandboxed(probe({"environ", std::to_string(getpid()), "all"}));
  ASSERT_TRUE(ns.started) << ns.start_error;
  EXPECT_EQ(ns.out.find(secret), std::string::npos) << ns.out;

  // Without namespaces the parent is visible, and non-dumpable plus the child's dropped
  // capabilities must keep its environ closed: the guarantee of sandbox = "process".
  auto before = run_sandboxed(probe({"environ", std::to_string(getpid())}, SandboxKind::process));
  harden_parent_process();
  auto after = run_sandboxed(probe({"environ", std::to_string(getpid())}, SandboxKind::process));
  EXPECT_NE(after.exit_code, 0) << after.out;
  EXPECT_EQ(after.out.find(secret), std::string::npos) << after.out;
  // The controls: the probe's read works on an environ it may read (its own), and, for a parent
  // that is not root, on the dumpable parent before hardening. (A root parent's is closed to a
  // child without capabilities already: the kernel wants the reader's capabilities to cover the
  // target's.)
  auto own = run_sandboxed(probe({"environ", "self"}, SandboxKind::process));
  EXPECT_EQ(own.exit_code, 0) << own.out;
  if (geteuid() != 0) {
    EXPECT_NE(before.out.find(secret), std::string::npos) << "control: a dumpable parent's environ is readable\n"
                                                          << before.out;
  }
}

TEST_F(SandboxEscape, RepositoryIsHiddenOrReadOnly) {
  auto git = run_sandboxed(probe({"read", (repo_ / ".git" / "config").string()}));
  EXPECT_NE(git.exit_code, 0);
  EXPECT_EQ(git.out.find(marker_), std::string::npos) << git.out;

  auto hook = run_sandboxed(probe({"write", (repo_ / ".git" / "hooks" / "pre-commit").string()}));
  EXPECT_NE(hook.exit_code, 0);
  EXPECT_FALSE(fs::exists(repo_ / ".git" / "hooks" / "pre-commit"));

  auto source = run_sandboxed(probe({"write", (repo_ / "src" / "kernel.cu").string()}));
  EXPECT_NE(source.exit_code, 0);
  EXPECT_EQ(slurp(repo_ / "src" / "kernel.cu"), "// the original\n");

  auto planted = run_sandboxed(probe({"write", (repo_ / ".kernelbot" / "planted.json").string()}));
  EXPECT_NE(planted.exit_code, 0);
  EXPECT_FALSE(fs::exists(repo_ / ".kernelbot" / "planted.json"));

  // The control: the job directory is writable, and what is written there lands.
  auto own = run_sandboxed(probe({"write", (job_ / "out.txt").string()}));
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  EXPECT_TRUE(fs::exists(job_ / "out.txt"));
}

TEST_F(SandboxEscape, WritesOutsideTheJobDirectoryDoNotLand) {
  const fs::path outside = dir_ / "outside.txt";
  auto r = run_sandboxed(probe({"write", outside.string()}));
  EXPECT_FALSE(fs::exists(outside)) << r.out;
  auto tmp = run_sandboxed(probe({"write", "/tmp/kb-escape-planted"}));
  EXPECT_EQ(tmp.exit_code, 0) << "a private /tmp is writable";
  EXPECT_FALSE(fs::exists("/tmp/kb-escape-planted")) << "but it is not the host's";
  auto root = run_sandboxed(probe({"write", "/usr/kb-escape-planted"}));
  EXPECT_NE(root.exit_code, 0);
  EXPECT_FALSE(fs::exists("/usr/kb-escape-planted"));
}

TEST_F(SandboxEscape, HomeCredentialsAreNotThere) {
  const fs::path home = dir_ / "home";
  fs::create_directories(home);
  std::ofstream(home / ".git-credentials") << "https://x-access-token:" << marker_ << "@github.com\n";
  const char* old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  setenv("HOME", home.c_str(), 1);  // HOME passes into children
  auto ns = run_sandboxed(probe({"read", (home / ".git-credentials").string()}));
  auto control = run_sandboxed(probe({"read", (home / ".git-credentials").string()}, SandboxKind::process));
  setenv("HOME", saved.c_str(), 1);
  EXPECT_NE(ns.exit_code, 0);
  EXPECT_EQ(ns.out.find("github.com"), std::string::npos) << ns.out;
  // The control: without namespaces the file is read (the redactor then hides the password).
  EXPECT_EQ(control.exit_code, 0) << control.describe() << "\n" << control.out;
  EXPECT_NE(control.out.find("x-access-token:[REDACTED]"), std::string::npos) << control.out;
}

TEST_F(SandboxEscape, NoNetworkNotEvenLoopback) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  ASSERT_EQ(listen(listener, 4), 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));

  auto ns = run_sandboxed(probe({"connect", port}));
  EXPECT_NE(ns.exit_code, 0) << ns.out;
  EXPECT_LT(accept(listener, nullptr, nullptr), 0) << "the listener got a connection from the sandbox";

  auto control = run_sandboxed(probe({"connect", port}, SandboxKind::process));
  EXPECT_EQ(control.exit_code, 0) << "control: the probe connects without namespaces: " << control.out;
  int accepted = accept(listener, nullptr, nullptr);
  EXPECT_GE(accepted, 0);
  if (accepted >= 0) close(accepted);
  close(listener);
}

TEST_F(SandboxEscape, DaemonDiesWithTheJob) {
  const std::string tag = "kb-daemon-" + std::to_string(getpid());
  auto r = run_sandboxed(probe({"daemon", tag}));
  EXPECT_EQ(r.out, "daemon started\n");
  EXPECT_TRUE(survivors(tag).empty()) << "a double-forked daemon outlived its job";

  // The control: started outside any sandbox, the same probe's double-forked daemon does outlive
  // the process that started it (so the check above can fail); it is killed here so it does not
  // outlive the test either. (Under sandbox = "process" whether it escapes depends on whether the
  // tree watcher saw it before it left: a race, so no control there.)
  const std::string control = tag + "-control";
  pid_t starter = fork();
  if (starter == 0) {
    execl(KB_SANDBOX_PROBE, KB_SANDBOX_PROBE, "daemon", control.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(starter, 0);
  int status = 0;
  waitpid(starter, &status, 0);
  std::vector<pid_t> escaped;
  for (int i = 0; i < 250 && escaped.empty(); ++i) {  // up to 5 s on a loaded machine for it to appear
    escaped = processes_with(control);
    if (escaped.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(escaped.empty()) << "control: the probe's daemon does start and outlive its parent";
  for (pid_t p : escaped) kill(p, SIGKILL);
}

TEST_F(SandboxEscape, ForkBombIsStoppedAndCleanedUp) {
  SandboxCommand c = probe({"forkbomb"});
  c.limits.max_processes = 32;
  auto start = std::chrono::steady_clock::now();
  auto r = run_sandboxed(c);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.killed_for_processes) << r.describe() << "\n" << r.out;
  EXPECT_FALSE(r.succeeded());
  EXPECT_LT(elapsed, 10);
  EXPECT_EQ(r.out.find("was not stopped"), std::string::npos);
  EXPECT_TRUE(survivors(std::string(KB_SANDBOX_PROBE) + " forkbomb").empty());
}

// A candidate prints the harness's crash line with a stolen secret after it: neither its
// output nor the verdict's reason may carry the secret.
TEST_F(SandboxEscape, ForgedCrashLineCarriesNoSecret) {
  const std::string token = "ghp_" + marker_ + "abcdefghijklmnop";
  register_secret(token);
  auto r = run_sandboxed(probe({"say", "kb-harness: candidate crashed: " + token}));
  EXPECT_EQ(r.exit_code, kHarnessCandidateCrashed);
  EXPECT_EQ(r.err.find(token), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kRedacted), std::string::npos) << r.err;
  HarnessRun run;
  run.process = r;
  EvalResult e = classify_harness_run(run, 0);
  EXPECT_EQ(e.verdict, Verdict::crashed);
  EXPECT_EQ(e.reason.find(marker_), std::string::npos) << e.reason;
}

// Issue #27: nothing constant in the sandbox says "judged". Its UTS namespace keeps the machine's
// hostname (which the sandbox cannot change): no --hostname naming kernelbot or a sandbox.
TEST(SandboxIdentity, TheSandboxKeepsTheMachinesHostnameInItsOwnUtsNamespace) {
  FilesystemView view;
  const std::vector<std::string> argv = bwrap_argv("bwrap", view, {"/bin/true"}, "");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--unshare-uts"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--hostname"), argv.end());
  for (const auto& a : argv) {
    EXPECT_EQ(a.find("kernelbot"), std::string::npos) << a;
    EXPECT_EQ(a.find("sandbox"), std::string::npos) << a;
  }
}

}  // namespace
}  // namespace kb::profiler
