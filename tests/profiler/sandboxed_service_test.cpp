// A long-lived sandboxed child (the judge's session) with real /bin/sh children speaking frames:
// replies and the stderr of each exchange kept apart, and every way the child can fail an
// exchange (silence, death, garbage, a process flood) ending the session with how it ended.
#include "profiler/sandbox/sandboxed_service.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

namespace kb::profiler {
namespace {

// A child that answers each frame on its channel (requests on descriptor 3, replies on 4) with
// "echo:<payload>" and says on stderr what it got.
const char* kEcho = R"SH(
while read -r len <&3; do
  payload=$(head -c "$len" <&3)
  echo "got $payload" >&2
  case "$payload" in
    hang) sleep 30 ;;
    die) echo "dying" >&2; exit 3 ;;
    garbage) echo "not a frame" >&4; sleep 30 ;;
    twice) printf '1\na1\nb' >&4 ;;
    flood) for i in $(seq 1 40); do sleep 30 & done; sleep 30 ;;
    stdout) echo "a line on stdout" ;;
    forge) printf '7\nFORGED!' > /proc/1/fd/1; printf '7\nFORGED!' > /proc/1/fd/0 ;;
    key) keyed=" after the key"; continue ;;  # a posted frame: no reply, as the judge's key
  esac
  reply="echo:$payload$keyed"
  printf '%s\n%s' "${#reply}" "$reply" >&4
done
)SH";

SandboxCommand shell(const std::string& script, SandboxKind kind = SandboxKind::process) {
  SandboxCommand c;
  c.argv = {"/bin/sh", "-c", script};
  c.limits.term_grace_s = 0.5;
  c.limits.max_processes = 20;
  c.kind = kind;
  return c;
}

TEST(SandboxSessionTest, RepliesInTurnWithEachExchangesOwnStderr) {
  SandboxedService session(shell(kEcho));
  ASSERT_TRUE(session.alive());
  auto a = session.exchange("first", 10);
  ASSERT_TRUE(a.reply) << a.process.describe() << " " << a.process.err;
  EXPECT_EQ(*a.reply, "echo:first");
  EXPECT_EQ(a.process.err, "got first\n");
  auto b = session.exchange("second\nline", 10);
  ASSERT_TRUE(b.reply);
  EXPECT_EQ(*b.reply, "echo:second\nline");
  EXPECT_EQ(b.process.err, "got second\nline\n") << "the first exchange's stderr is not repeated";
  EXPECT_TRUE(session.alive());
  EXPECT_GT(b.process.wall_s, 0);
}

// A GPU worker of `kernelbot run` starts a session and ends; the main thread uses it after
// (bench/search_throughput's repeat search did, and found the judge killed by SIGKILL: the death
// signal a child gets when its parent goes is tied to the thread that forked it).
TEST(SandboxSessionTest, OutlivesTheThreadThatStartedIt) {
  for (SandboxKind kind : {SandboxKind::process, SandboxKind::namespaces}) {
    SCOPED_TRACE(to_string(kind));
    SandboxCommand c = shell(kEcho, kind);
    c.working_dir = std::filesystem::temp_directory_path();
    c.view.writable = {c.working_dir};
    std::unique_ptr<SandboxedService> session;
    std::thread([&] {
      session = std::make_unique<SandboxedService>(c);
      auto first = session->exchange("from the worker", 10);
      EXPECT_TRUE(first.reply);
    }).join();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_TRUE(session->alive());
    auto later = session->exchange("from main", 10);
    ASSERT_TRUE(later.reply) << later.process.describe();
    EXPECT_EQ(*later.reply, "echo:from main");
  }
}

TEST(SandboxSessionTest, ASilentChildTimesOutAndTheSessionEnds) {
  SandboxedService session(shell(kEcho));
  const auto start = std::chrono::steady_clock::now();
  auto x = session.exchange("hang", 0.5);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  EXPECT_FALSE(x.reply);
  EXPECT_TRUE(x.process.timed_out);
  EXPECT_EQ(x.process.signal, SIGKILL);
  EXPECT_EQ(x.process.err, "got hang\n");
  EXPECT_FALSE(session.alive());
  auto after = session.exchange("again", 1);
  EXPECT_FALSE(after.process.started);
  EXPECT_NE(after.process.start_error.find("ended"), std::string::npos) << after.process.start_error;
}

TEST(SandboxSessionTest, AChildThatDiesMidExchangeGivesItsExitStatusAndStderr) {
  SandboxedService session(shell(kEcho));
  auto x = session.exchange("die", 10);
  EXPECT_FALSE(x.reply);
  EXPECT_FALSE(x.process.timed_out);
  EXPECT_EQ(x.process.exit_code, 3);
  EXPECT_EQ(x.process.err, "got die\ndying\n");
  EXPECT_FALSE(session.alive());
}

// Garbage, or a second frame for one request, on the reply channel.
TEST(SandboxSessionTest, AnythingButOneReplyFrameEndsTheSession) {
  for (const char* request : {"garbage", "twice"}) {
    SandboxedService session(shell(kEcho));
    auto x = session.exchange(request, 10);
    EXPECT_FALSE(x.reply) << request;
    EXPECT_FALSE(x.protocol_error.empty()) << request;
    EXPECT_FALSE(session.alive()) << request;
  }
}

TEST(SandboxSessionTest, StdoutIsUntrustedTextAndAPostedFrameGoesFirst) {
  SandboxedService session(shell(kEcho));
  session.post("key");
  auto x = session.exchange("stdout", 10);
  ASSERT_TRUE(x.reply) << x.process.describe();
  EXPECT_EQ(*x.reply, "echo:stdout after the key") << "the posted frame is the first the child reads";
  EXPECT_NE(x.process.err.find("a line on stdout"), std::string::npos) << x.process.err;
}

TEST(SandboxSessionTest, AProcessFloodIsKilled) {
  SandboxedService session(shell(kEcho));
  auto x = session.exchange("flood", 10);
  EXPECT_FALSE(x.reply);
  EXPECT_TRUE(x.process.killed_for_processes);
  EXPECT_FALSE(session.alive());
}

TEST(SandboxSessionTest, ACommandThatCannotStartEndsTheFirstExchangeAsTheShellWould) {
  SandboxCommand c = shell("");
  c.argv = {"/nonexistent/judge"};
  SandboxedService session(c);
  auto x = session.exchange("job", 5);
  EXPECT_FALSE(x.reply);
  EXPECT_EQ(x.process.exit_code, 127) << x.process.describe();
  EXPECT_FALSE(session.alive());
  c.argv = {"no-such-judge-on-path"};
  SandboxedService unnamed(c);
  EXPECT_FALSE(unnamed.alive());
  auto y = unnamed.exchange("job", 1);
  EXPECT_FALSE(y.process.started);
  EXPECT_NE(y.process.start_error.find("no-such-judge-on-path"), std::string::npos) << y.process.start_error;
}

TEST(SandboxSessionTest, WorksInsideTheNamespaceSandbox) {
  if (!namespace_sandbox_problem().empty()) GTEST_FAIL() << namespace_sandbox_problem();
  SandboxCommand c = shell(kEcho, SandboxKind::namespaces);
  c.working_dir = std::filesystem::temp_directory_path();
  c.view.writable = {c.working_dir};
  SandboxedService session(c);
  auto x = session.exchange("inside", 10);
  ASSERT_TRUE(x.reply) << x.process.describe() << " " << x.process.err;
  EXPECT_EQ(*x.reply, "echo:inside");
  // Any process of the sandbox can open what bubblewrap's pid 1 holds (/proc/1/fd/0-2): a reply
  // written there lands on the child's stdout or stdin, never on the channel.
  auto forged = session.exchange("forge", 10);
  ASSERT_TRUE(forged.reply) << forged.process.describe() << " " << forged.process.err;
  EXPECT_EQ(*forged.reply, "echo:forge");
  EXPECT_NE(forged.process.err.find("FORGED!"), std::string::npos) << "it went to the untrusted stdout";
  auto after = session.exchange("after", 10);
  ASSERT_TRUE(after.reply) << after.process.describe();
  EXPECT_EQ(*after.reply, "echo:after") << "nothing forged was taken for a reply";
  session.close();
  EXPECT_FALSE(session.alive());
}

}  // namespace
}  // namespace kb::profiler
