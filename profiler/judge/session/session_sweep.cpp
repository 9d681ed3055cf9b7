#include "profiler/judge/session/session_sweep.h"

#include <dirent.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kb::judge {
namespace fs = std::filesystem;

std::vector<pid_t> child_processes(pid_t parent) {
  std::vector<pid_t> children;
  DIR* dir = ::opendir("/proc");
  if (!dir) return children;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow
    // the last ')'. Field 3 is the state, field 4 the parent's pid.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(static_cast<pid_t>(std::atoll(e->d_name)));
  }
  ::closedir(dir);
  return children;
}

int kill_stray_children(const std::vector<pid_t>& keep, int max_rounds) {
  int killed = 0;
  for (int round = 0;; ++round) {
    std::vector<pid_t> strays;
    for (pid_t p : child_processes(::getpid()))
      if (std::find(keep.begin(), keep.end(), p) == keep.end()) strays.push_back(p);
    if (strays.empty()) return killed;
    if (round == max_rounds) return -1;
    for (pid_t p : strays) ::kill(p, SIGKILL);
    // Reaped one by one: waitpid(-1) could reap a kept child, whose owner waits for it itself.
    for (pid_t p : strays)
      if (::waitpid(p, nullptr, 0) == p) ++killed;
  }
}

bool empty_directory(const fs::path& dir, std::string& problem) {
  std::error_code ec;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<fs::path> entries;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      entries.push_back(it->path());
    if (ec) {
      problem = "cannot list " + dir.string() + ": " + ec.message();
      return false;
    }
    bool left = false;
    for (const auto& p : entries) {
      std::error_code remove_error;
      fs::remove_all(p, remove_error);
      if (!remove_error) continue;
      left = true;
      // A directory the candidate made unreadable or unwritable: give its owner (this user, who
      // created it through the candidate) its permissions back, all the way down, then retry.
      if (fs::is_directory(fs::symlink_status(p))) {
        ::chmod(p.c_str(), 0700);
        for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
          if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
        ec.clear();
      }
    }
    if (!left) return true;
  }
  problem = "cannot empty " + dir.string() + ": something in it cannot be removed";
  return false;
}

int remove_sysv_ipc_objects() {
  int removed = 0;
  // /proc/sysvipc/<kind> lists one object per line after a header; the id is the second column.
  auto ids = [](const char* file) {
    std::vector<int> out;
    std::ifstream f(file);
    std::string line;
    std::getline(f, line);  // the header
    while (std::getline(f, line)) {
      std::istringstream in(line);
      long long key = 0, id = -1;
      if (in >> key >> id && id >= 0) out.push_back(static_cast<int>(id));
    }
    return out;
  };
  for (int id : ids("/proc/sysvipc/shm"))
    if (::shmctl(id, IPC_RMID, nullptr) == 0) ++removed;
  for (int id : ids("/proc/sysvipc/sem"))
    if (::semctl(id, 0, IPC_RMID) == 0) ++removed;
  for (int id : ids("/proc/sysvipc/msg"))
    if (::msgctl(id, IPC_RMID, nullptr) == 0) ++removed;
  return removed;
}

bool clear_user_keyrings() {
  const long user = ::syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING);
  const long user_session = ::syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING);
  // The sandbox's own session keyring (sandbox_process.cpp joins a new one for it).
  const long session = ::syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_SESSION_KEYRING);
  return user == 0 && user_session == 0 && session == 0;
}

std::optional<ProcessSettings> process_settings(pid_t pid) {
  ProcessSettings s;
  errno = 0;
  s.nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
  if (errno != 0) return std::nullopt;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(pid, sizeof set, &set) != 0) return std::nullopt;
  s.cpus.assign(reinterpret_cast<const char*>(&set), sizeof set);
  for (int r : {RLIMIT_AS, RLIMIT_CORE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_MEMLOCK, RLIMIT_NOFILE,
                RLIMIT_NPROC, RLIMIT_STACK}) {
    rlimit l{};
    if (::prlimit(pid, static_cast<__rlimit_resource>(r), nullptr, &l) != 0) return std::nullopt;
    s.limits.emplace_back(l.rlim_cur, l.rlim_max);
  }
  return s;
}

}  // namespace kb::judge
