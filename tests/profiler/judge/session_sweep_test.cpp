// What a session's judge clears between jobs, exercised in a child process of the test (which
// becomes the subreaper, as the judge does): a daemon that double-forked and left its session is
// still found and killed, the kept process is not; files a candidate locked down are removed
// without following links out; System V objects go, in an IPC namespace of the test's own.
#include "profiler/judge/session/session_sweep.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

namespace kb::judge {
namespace {
namespace fs = std::filesystem;

// Runs `body` in a forked child; the test passes when it returns 0 (its failures are exit codes).
int in_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST(SessionSweep, KillsEveryProcessADaemonLeftAndKeepsTheKeptOne) {
  const int rc = in_child([] {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return 1;
    int report[2];
    if (::pipe(report) != 0) return 2;
    const pid_t kept = ::fork();
    if (kept == 0) {
      ::pause();
      ::_exit(0);
    }
    // The "candidate": double-forks a daemon in a new session, reports its pid, and exits.
    const pid_t candidate = ::fork();
    if (candidate == 0) {
      if (::fork() == 0) {
        ::setsid();
        if (::fork() == 0) {
          const pid_t me = ::getpid();
          if (::write(report[1], &me, sizeof me) != sizeof me) ::_exit(1);
          for (;;) ::pause();
        }
        ::_exit(0);
      }
      ::_exit(0);
    }
    ::waitpid(candidate, nullptr, 0);
    pid_t daemon = 0;
    if (::read(report[0], &daemon, sizeof daemon) != sizeof daemon) return 3;
    if (!alive(daemon)) return 4;
    const int killed = kill_stray_children({kept});
    if (killed < 1) return 5;  // the daemon (and the exited middle process, when still a zombie)
    if (alive(daemon)) return 6;
    if (!alive(kept)) return 7;
    const auto children = child_processes(::getpid());
    if (children.size() != 1 || children[0] != kept) return 8;
    ::kill(kept, SIGKILL);
    ::waitpid(kept, nullptr, 0);
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(SessionSweep, EmptiesADirectoryTheCandidateLockedDownButNotWhatItsLinksPointAt) {
  const fs::path root = fs::temp_directory_path() / ("kb-sweep-" + std::to_string(::getpid()));
  const fs::path dir = root / "session", outside = root / "outside.txt";
  fs::create_directories(dir / "locked" / "deeper");
  std::ofstream(dir / "locked" / "deeper" / "cache.bin") << "x";
  std::ofstream(dir / "plain.txt") << "y";
  std::ofstream(outside) << "keep me";
  fs::create_symlink(outside, dir / "link");
  fs::create_directory_symlink(root, dir / "dirlink");
  ::chmod((dir / "locked" / "deeper").c_str(), 0);
  ::chmod((dir / "locked").c_str(), 0);
  std::string problem;
  EXPECT_TRUE(empty_directory(dir, problem)) << problem;
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_TRUE(fs::exists(root / "session"));
  fs::remove_all(root);

  EXPECT_FALSE(empty_directory(root / "missing", problem));
  EXPECT_NE(problem.find("cannot list"), std::string::npos) << problem;
}

TEST(SessionSweep, RemovesSystemVObjectsOfItsIpcNamespace) {
  const int rc = in_child([] {
    // An IPC namespace of its own (through a user namespace, as an unprivileged test): the
    // machine's own objects are out of reach, as the sandbox's judge's are.
    if (::unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0) return 10 + errno % 10;
    const int shm = ::shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    const int sem = ::semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    const int msg = ::msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    if (shm < 0 || sem < 0 || msg < 0) return 2;
    if (remove_sysv_ipc_objects() != 3) return 3;
    shmid_ds shm_state{};
    msqid_ds msg_state{};
    if (::shmctl(shm, IPC_STAT, &shm_state) == 0 || ::msgctl(msg, IPC_STAT, &msg_state) == 0) return 4;
    return remove_sysv_ipc_objects() == 0 ? 0 : 5;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace kb::judge

namespace kb::judge {
namespace {

// A server the judge started has the judge's settings, even non-dumpable (as every harness
// process is); a candidate's renice, re-pin or lowered limit shows.
TEST(SessionSweep, ProcessSettingsMatchAForkedServerAndShowATamperedOne) {
  const int rc = in_child([] {
    const pid_t server = ::fork();
    if (server == 0) {
      ::prctl(PR_SET_DUMPABLE, 0);
      for (;;) ::pause();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto mine = process_settings(0), its = process_settings(server);
    int result = 0;
    if (!mine || !its) result = 1;
    else if (*mine != *its) result = 2;
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(server), mine ? mine->nice + 5 : 5);
    if (result == 0 && process_settings(server) == mine) result = 3;
    rlimit files{};
    ::prlimit(server, RLIMIT_NOFILE, nullptr, &files);
    files.rlim_cur = files.rlim_cur > 64 ? 64 : files.rlim_cur / 2;
    if (::prlimit(server, RLIMIT_NOFILE, &files, nullptr) != 0) result = result ? result : 4;
    const auto limited = process_settings(server);
    if (result == 0 && (!limited || !mine || limited->limits == mine->limits)) result = 5;
    ::kill(server, SIGKILL);
    ::waitpid(server, nullptr, 0);
    return result;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace kb::judge
