// git through libgit2 against real repositories in a temp dir: commits built from the base tree
// (work tree, index and HEAD untouched), pushes to a bare repository by path, force-push on
// update, and the token kept out of .git/config, remote URLs, error messages and logs.
#include <git2.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>

#include <filesystem>
#include <sstream>

#include "bot/forge/branch_commit.h"
#include "bot/forge/git_repo.h"
#include "tests/bot/git_fixture.h"
#include "tests/support/loopback_http_server.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

class GitRepoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_git_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    write_text(work_ / "src/saxpy.cu", "#define SAXPY_BLOCK 32\n");
    write_text(work_ / "README.md", "demo\n");
    base_ = init_repo_with_commit(work_);
    bare_ = dir_ / "remote.git";
    init_bare_repo(bare_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  kb::bot::GitRepo repo() {
    auto r = kb::bot::GitRepo::discover(work_ / "src");
    EXPECT_TRUE(r.has_value());
    return std::move(*r);
  }

  fs::path dir_, work_, bare_;
  std::string base_;
};

// Captures what spdlog's default logger writes while alive.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(GitRepoTest, CommitIsBuiltFromTheBaseTreeAndTouchesNothingElse) {
  write_text(work_ / "README.md", "uncommitted edit\n");  // the user's work in progress
  auto r = repo();
  EXPECT_EQ(fs::canonical(r.workdir()), fs::canonical(work_));
  std::string id = r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "#define SAXPY_BLOCK 256\n"}},
                                      "saxpy: 1.55x faster (verified on NVIDIA H100 80GB HBM3)\n", "kernelbot",
                                      "kernelbot@users.noreply.github.com");
  EXPECT_EQ(ref_target(work_, "refs/heads/kernelbot/saxpy"), id);
  auto info = commit_info(work_, "refs/heads/kernelbot/saxpy");
  EXPECT_EQ(info.parent, base_);
  EXPECT_EQ(info.parent_count, 1);
  EXPECT_EQ(info.changed, (std::map<std::string, std::string>{{"src/saxpy.cu", "M"}}));
  EXPECT_EQ(info.author_name, "kernelbot");
  EXPECT_EQ(info.author_email, "kernelbot@users.noreply.github.com");
  EXPECT_EQ(info.message, "saxpy: 1.55x faster (verified on NVIDIA H100 80GB HBM3)\n");
  EXPECT_EQ(*file_in(work_, "refs/heads/kernelbot/saxpy", "README.md"), "demo\n");  // base content, not the edit
  // HEAD, the work tree and the index are as they were.
  EXPECT_EQ(ref_target(work_, "refs/heads/main"), base_);
  EXPECT_EQ(read_text(work_ / "src/saxpy.cu"), "#define SAXPY_BLOCK 32\n");
  EXPECT_EQ(read_text(work_ / "README.md"), "uncommitted edit\n");
  git_repository* raw = nullptr;
  ASSERT_EQ(git_repository_open(&raw, work_.c_str()), 0);
  git_reference* head = nullptr;
  ASSERT_EQ(git_repository_head(&head, raw), 0);
  EXPECT_STREQ(git_reference_name(head), "refs/heads/main");
  git_reference_free(head);
  git_repository_free(raw);
}

TEST_F(GitRepoTest, PushesToABareRepositoryByPathAndForcePushesAnUpdate) {
  auto r = repo();
  std::string first = r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "v1\n"}}, "one\n", "kb", "kb@x");
  r.push(bare_.string(), "kernelbot/saxpy", "");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), first);
  EXPECT_EQ(*file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), "v1\n");
  // The update is a new commit on the base, not on top of the first: only a forced push lands it.
  std::string second = r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "v2\n"}}, "two\n", "kb", "kb@x");
  EXPECT_EQ(commit_info(work_, second).parent, base_);
  r.push(bare_.string(), "kernelbot/saxpy", "");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), second);
  EXPECT_EQ(*file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), "v2\n");
}

TEST_F(GitRepoTest, PushesThroughANamedRemote) {
  add_remote(work_, "origin", bare_.string());
  auto r = repo();
  EXPECT_EQ(r.remote_url("origin"), bare_.string());
  EXPECT_EQ(r.remote_url("nope"), "");
  std::string id = r.commit_on_branch("main", "kernelbot/x", {{"new/file.cu", "new\n"}}, "m\n", "kb", "kb@x");
  r.push("origin", "kernelbot/x", "");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/x"), id);
  EXPECT_EQ(commit_info(work_, id).changed.at("new/file.cu"), "A");
}

// A `git daemon` on a loopback port, serving `base` with pushes enabled, stopped with the test.
class GitDaemon {
 public:
  explicit GitDaemon(const fs::path& base) {
    port_ = free_port();
    pid_ = fork();
    if (pid_ == 0) {
      // Its chatter (a client hanging up after a push) goes to a log next to the repositories.
      const std::string log = (base / "git-daemon.log").string();
      if (FILE* f = std::fopen(log.c_str(), "w")) dup2(fileno(f), STDERR_FILENO);
      const std::string port = "--port=" + std::to_string(port_), path = "--base-path=" + base.string();
      execlp("git", "git", "daemon", "--reuseaddr", "--listen=127.0.0.1", port.c_str(), path.c_str(), "--export-all",
             "--enable=receive-pack", base.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Ready when it accepts connections.
    for (int i = 0; i < 100 && !accepts(); ++i) usleep(50000);
  }
  ~GitDaemon() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  std::string url(const std::string& repo) const { return "git://127.0.0.1:" + std::to_string(port_) + "/" + repo; }
  bool accepts() const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
  }

 private:
  static int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
  }
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(GitRepoTest, PushesOverTheGitProtocolToAGitDaemon) {
  GitDaemon daemon(dir_);
  ASSERT_TRUE(daemon.accepts()) << "git daemon did not start";
  auto r = repo();
  std::string first = r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "v1\n"}}, "one\n", "kb", "kb@x");
  r.push(daemon.url("remote.git"), "kernelbot/saxpy", "");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), first);
  std::string second = r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "v2\n"}}, "two\n", "kb", "kb@x");
  r.push(daemon.url("remote.git"), "kernelbot/saxpy", "");  // forced: the update is not a fast-forward
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), second);
  EXPECT_EQ(*file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), "v2\n");
  // A repository the daemon does not have is an error that names the remote, not a crash.
  EXPECT_THROW(r.push(daemon.url("missing.git"), "kernelbot/saxpy", ""), std::runtime_error);
}

TEST_F(GitRepoTest, TheTokenGoesOnlyToTheServerAsACredential) {
  // An HTTPS-style remote that demands credentials: libgit2 asks the callback, which answers
  // x-access-token:<token>; the server sees them and refuses the push.
  const std::string token = "ghs_kb_SECRET_token_0123456789";
  std::vector<std::string> authorizations;
  std::mutex m;
  LoopbackHttpServer server([&](const LoopbackRequest& req) {
    auto it = req.headers.find("authorization");
    if (it == req.headers.end())
      return LoopbackResponse{401, {{"WWW-Authenticate", "Basic realm=\"GitHub\""}}, "", 0, false};
    std::lock_guard lock(m);
    authorizations.push_back(it->second);
    return LoopbackResponse{403, {{"Content-Type", "text/plain"}}, "Permission denied", 0, false};
  });
  add_remote(work_, "origin", server.base_url() + "/acme/widgets.git");
  auto r = repo();
  r.commit_on_branch("main", "kernelbot/saxpy", {{"src/saxpy.cu", "v1\n"}}, "m\n", "kb", "kb@x");
  std::string error;
  {
    LogCapture logs;
    try {
      r.push("origin", "kernelbot/saxpy", token);
    } catch (const std::exception& e) {
      error = e.what();
      spdlog::error("{}", error);  // what the bot would log
    }
    EXPECT_EQ(logs.text().find(token), std::string::npos) << logs.text();
  }
  EXPECT_FALSE(error.empty()) << "the server refused the push";
  EXPECT_EQ(error.find(token), std::string::npos) << error;
  ASSERT_FALSE(authorizations.empty());
  // Basic base64("x-access-token:ghs_kb_SECRET_token_0123456789")
  EXPECT_EQ(authorizations.front(), "Basic eC1hY2Nlc3MtdG9rZW46Z2hzX2tiX1NFQ1JFVF90b2tlbl8wMTIzNDU2Nzg5");
  EXPECT_EQ(read_text(work_ / ".git/config").find(token), std::string::npos);
  EXPECT_EQ(r.remote_url("origin").find(token), std::string::npos);
  for (const auto& req : server.requests()) EXPECT_EQ(req.target.find(token), std::string::npos) << req.target;
}

TEST_F(GitRepoTest, PullRequestCommitRefusesABaseThatIsNotWhatWasMeasured) {
  auto r = repo();
  kb::bot::PullRequest pr;
  pr.base = "main";
  pr.head = "kernelbot/saxpy";
  pr.commit_message = "saxpy: 2.00x faster\n";
  std::string path = fs::absolute(work_ / "src/saxpy.cu").string();
  pr.files[path] = "#define SAXPY_BLOCK 256\n";
  pr.originals[path] = "#define SAXPY_BLOCK 64\n";  // measured against a local edit main does not have
  try {
    kb::bot::commit_pull_request(r, pr);
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("src/saxpy.cu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kernelbot pr"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ref_target(work_, "refs/heads/kernelbot/saxpy"), "");
  pr.originals[path] = "#define SAXPY_BLOCK 32\n";
  std::string id = kb::bot::commit_pull_request(r, pr);
  EXPECT_EQ(*file_in(work_, id, "src/saxpy.cu"), "#define SAXPY_BLOCK 256\n");
}

}  // namespace
