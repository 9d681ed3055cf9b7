#include "profiler/sandbox_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace kb::profiler {
namespace {

using Clock = std::chrono::steady_clock;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keeps the first and the last half of `limit` bytes of a stream: a long log's beginning says
// what ran, its end says how it died.
class BoundedBuffer {
 public:
  explicit BoundedBuffer(size_t limit) : half_(std::max<size_t>(limit / 2, 1)) {}
  void append(const char* data, size_t n) {
    total_ += n;
    size_t to_head = std::min(n, half_ - std::min(half_, head_.size()));
    head_.append(data, to_head);
    if (to_head < n) {
      tail_.append(data + to_head, n - to_head);
      if (tail_.size() > 2 * half_) tail_.erase(0, tail_.size() - half_);
    }
  }
  std::string text(bool& truncated) const {
    std::string tail = tail_.size() > half_ ? tail_.substr(tail_.size() - half_) : tail_;
    size_t dropped = total_ - head_.size() - tail.size();
    truncated = dropped > 0;
    if (!truncated) return head_ + tail;
    return head_ + "\n[... " + std::to_string(dropped) + " bytes omitted ...]\n" + tail;
  }

 private:
  size_t half_;
  size_t total_ = 0;
  std::string head_, tail_;
};

// Resident memory of every process in process group `pgid`, in MiB (from /proc/<pid>/stat).
int64_t group_rss_mb(pid_t pgid) {
  static const long page = sysconf(_SC_PAGESIZE);
  int64_t pages = 0;
  DIR* dir = opendir("/proc");
  if (!dir) return 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    // The command name (field 2) may contain spaces: fields after it follow the last ')'.
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    long long pgrp = 0, rss = 0;
    // Fields 3.. : state ppid pgrp ... rss is field 24.
    for (int index = 3; index <= 24 && rest >> field; ++index) {
      if (index == 5) pgrp = std::atoll(field.c_str());
      if (index == 24) rss = std::atoll(field.c_str());
    }
    if (pgrp == pgid) pages += rss;
  }
  closedir(dir);
  return pages * page / (1024 * 1024);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGPIPE: return "SIGPIPE";
    default: return nullptr;
  }
}

std::string format_seconds(double s) {
  std::ostringstream out;
  out << (s >= 10 ? static_cast<double>(static_cast<int64_t>(s + 0.5)) : s) << " s";
  return out.str();
}

}  // namespace

std::string SandboxResult::describe() const {
  if (!started) return "did not start: " + start_error;
  if (timed_out) return "timed out: killed after " + format_seconds(wall_s);
  if (killed_for_memory) return "killed for using " + std::to_string(peak_rss_mb) + " MiB of host memory";
  if (signal != 0) {
    const char* name = signal_name(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

bool env_name_allowed(const std::string& name) {
  static const char* const kSecretSuffixes[] = {"_KEY", "_TOKEN"};
  static const char* const kSecretParts[] = {"SECRET", "PASSWORD", "CREDENTIAL", "PASSWD"};
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char* s : kSecretSuffixes)
    if (ends_with(upper, s)) return false;
  for (const char* p : kSecretParts)
    if (upper.find(p) != std::string::npos) return false;
  if (starts_with(upper, "GITHUB_")) return false;
  static const char* const kExact[] = {"PATH", "HOME", "LANG", "TMPDIR", "TZ", "LD_LIBRARY_PATH"};
  for (const char* e : kExact)
    if (name == e) return true;
  return starts_with(name, "LC_") || starts_with(name, "CUDA_");
}

std::vector<std::string> scrubbed_environment(char** parent, const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = parent; e && *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (env_name_allowed(name) && !extra.count(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::string find_executable(const std::string& name, const std::string& path_list) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  std::istringstream dirs(path_list);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

SandboxResult run_sandboxed(const SandboxCommand& command) {
  SandboxResult result;
  if (command.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  // Everything the child needs is prepared before fork(): after fork() in a threaded process
  // only async-signal-safe calls are allowed until execve().
  std::vector<std::string> env_strings;
  if (command.scrub_env) {
    env_strings = scrubbed_environment(environ, command.extra_env);
  } else {
    for (char** e = environ; *e; ++e) {
      std::string entry = *e;
      if (!command.extra_env.count(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
    }
    for (const auto& [name, value] : command.extra_env) env_strings.push_back(name + "=" + value);
  }
  std::string path_list = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : env_strings)
    if (starts_with(e, "PATH=")) path_list = e.substr(5);
  std::string exe = find_executable(command.argv[0], path_list);
  if (exe.empty()) {
    result.start_error = "'" + command.argv[0] + "' not found in PATH";
    return result;
  }
  std::vector<char*> argv, envp;
  for (const auto& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::string workdir = command.working_dir.string();
  const rlim_t fsize = static_cast<rlim_t>(command.limits.max_file_mb) * 1024 * 1024;

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    close(out_pipe[0]), close(out_pipe[1]);
    return result;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    // Child: own session (so the whole group can be killed), limits, pipes, then exec.
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    rlimit fs{fsize, fsize};
    setrlimit(RLIMIT_FSIZE, &fs);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    // Inherited descriptors the parent's libraries left open without O_CLOEXEC are closed here.
    syscall(SYS_close_range, 3u, ~0u, 0u);
    int err = 0;
    if (!workdir.empty() && chdir(workdir.c_str()) != 0) err = errno;
    if (err == 0) {
      execve(exe.c_str(), argv.data(), envp.data());
      err = errno;
    }
    _exit(err == ENOENT ? 127 : 126);  // the shell's codes for "not found" / "cannot execute"
  }
  if (devnull >= 0) close(devnull);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    result.start_error = std::string("fork: ") + std::strerror(errno);
    close(out_pipe[0]), close(err_pipe[0]);
    return result;
  }
  result.started = true;

  BoundedBuffer out(command.limits.max_output_bytes), err(command.limits.max_output_bytes);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  bool open_fds[2] = {true, true};
  auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  auto deadline = start + seconds(command.limits.wall_time_s);
  auto kill_at = Clock::time_point::max();
  auto next_rss_check = start;
  auto drain_until = Clock::time_point::max();
  bool exited = false;
  int status = 0;
  char buf[65536];

  while (true) {
    auto now = Clock::now();
    if (!exited) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        result.wall_s = std::chrono::duration<double>(now - start).count();
        // The child's own children die with it: kill what is left of its process group.
        kill(-pid, SIGKILL);
        drain_until = now + std::chrono::seconds(2);
      }
    }
    if (exited && ((!open_fds[0] && !open_fds[1]) || now > drain_until)) break;
    if (!exited) {
      if (now >= deadline && kill_at == Clock::time_point::max()) {
        result.timed_out = true;
        kill(-pid, SIGTERM);
        kill_at = now + seconds(command.limits.term_grace_s);
      }
      if (now >= kill_at) kill(-pid, SIGKILL);
      if (command.limits.max_rss_mb > 0 && now >= next_rss_check) {
        int64_t rss = group_rss_mb(pid);
        result.peak_rss_mb = std::max(result.peak_rss_mb, rss);
        if (rss > command.limits.max_rss_mb && !result.killed_for_memory) {
          result.killed_for_memory = true;
          kill(-pid, SIGKILL);
        }
        next_rss_check = now + std::chrono::milliseconds(100);
      }
    }
    int n_open = 0;
    pollfd active[2];
    int map[2];
    for (int i = 0; i < 2; ++i)
      if (open_fds[i]) map[n_open] = i, active[n_open++] = fds[i];
    if (n_open == 0) {
      usleep(20000);
      continue;
    }
    int ready = poll(active, n_open, 20);
    if (ready <= 0) continue;
    for (int k = 0; k < n_open; ++k) {
      if (!(active[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(active[k].fd, buf, sizeof buf);
      if (n > 0) (map[k] == 0 ? out : err).append(buf, static_cast<size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN)) open_fds[map[k]] = false;
    }
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  if (!exited) waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = out.text(result.out_truncated);
  result.err = err.text(result.err_truncated);
  return result;
}

}  // namespace kb::profiler
