#include "profiler/sandbox/sandbox_process.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
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
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include "common/secret_redactor.h"

extern char** environ;

namespace kb::profiler {
namespace {

using Clock = std::chrono::steady_clock;

// In the forked child, before exec: no capabilities now or after exec (root's exec would grant
// them all again unless the bounding set is empty and SECBIT_NOROOT set), no privilege gained
// through setuid files. Failures are ignored: a non-root parent has nothing to drop.
void drop_privileges() {
  prctl(PR_SET_SECUREBITS,
        SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED);
  for (int cap = 0; cap <= 63; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  syscall(SYS_capset, &header, data);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
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
  out << (s >= 10 ? std::round(s) : s) << " s";
  return out.str();
}

}  // namespace

void BoundedOutput::append(const char* data, size_t n) {
  total_ += n;
  size_t to_head = std::min(n, half_ - std::min(half_, head_.size()));
  head_.append(data, to_head);
  if (to_head < n) {
    tail_.append(data + to_head, n - to_head);
    if (tail_.size() > 2 * half_) tail_.erase(0, tail_.size() - half_);
  }
}

std::string BoundedOutput::text(bool& truncated) const {
  std::string tail = tail_.size() > half_ ? tail_.substr(tail_.size() - half_) : tail_;
  size_t dropped = total_ - head_.size() - tail.size();
  truncated = dropped > 0;
  if (!truncated) return head_ + tail;
  return head_ + "\n[... " + std::to_string(dropped) + " bytes omitted ...]\n" + tail;
}

std::string SandboxResult::describe() const {
  if (!started) return "did not start: " + start_error;
  if (timed_out) return "timed out: killed after " + format_seconds(wall_s);
  if (killed_for_memory) return "killed for using " + std::to_string(peak_rss_mb) + " MiB of host memory";
  if (killed_for_processes) return "killed for starting over " + std::to_string(peak_processes - 1) + " processes";
  if (signal != 0) {
    const char* name = signal_name(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

bool env_name_allowed(const std::string& name) {
  if (env_name_looks_secret(name)) return false;
  static const char* const kExact[] = {"PATH", "HOME", "LANG", "TMPDIR", "TZ", "LD_LIBRARY_PATH"};
  for (const char* e : kExact)
    if (name == e) return true;
  return name.starts_with("LC_") || name.starts_with("CUDA_");
}

void harden_parent_process() { prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

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

namespace {

// The environment the child gets: scrubbed to an allow-list, or the parent's less its secrets,
// plus the command's own variables.
std::vector<std::string> child_environment(const SandboxCommand& command) {
  if (command.scrub_env) return scrubbed_environment(environ, command.extra_env);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!command.extra_env.count(name) && !env_name_looks_secret(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : command.extra_env) env.push_back(name + "=" + value);
  return env;
}

// The argv to execute and, in `exe`, the program's path: the command found on the child's PATH
// (its argv[0] as given), or bubblewrap running it for the namespace sandbox. Empty with
// `result.start_error` set when it cannot be started.
std::vector<std::string> child_argv(const SandboxCommand& command, const std::vector<std::string>& env,
                                    std::string& exe, SandboxResult& result) {
  std::string path_list = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : env)
    if (e.starts_with("PATH=")) path_list = e.substr(5);
  exe = find_executable(command.argv[0], path_list);
  if (exe.empty()) {
    result.start_error = "'" + command.argv[0] + "' not found in PATH";
    return {};
  }
  std::vector<std::string> args = command.argv;
  if (command.kind != SandboxKind::namespaces) return args;
  if (std::string problem = namespace_sandbox_problem(); !problem.empty()) {
    result.start_error = problem;
    return {};
  }
  args[0] = exe.starts_with('/') ? exe : std::filesystem::absolute(exe).string();
  args = bwrap_argv(find_bwrap(), command.view, args, command.working_dir);
  exe = args[0];
  return args;
}

// The child's standard streams, opened before fork(). Closes what it still owns when it ends.
struct ChildStdio {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int in[2] = {-1, -1};  // a pipe for stdin: the parent's end kept open, or stdin_data written into it
  int devnull = -1;      // stdin when there is no pipe

  ChildStdio() = default;
  ChildStdio(const ChildStdio&) = delete;
  ChildStdio& operator=(const ChildStdio&) = delete;
  ~ChildStdio() {
    for (int* fd : {&out[0], &out[1], &err[0], &err[1], &in[0], &in[1], &devnull})
      if (*fd >= 0) close(*fd);
  }
  // Hands a descriptor over to the caller: this no longer closes it.
  static int release(int& fd) { return std::exchange(fd, -1); }
};

// Opens the child's pipes. stdin_data goes through a pipe written before the child can read it
// (it fits the pipe's buffer), so only the child's first reader sees it: nothing of it is on disk
// or in argv/env. False with `result.start_error` set when that fails.
bool open_child_stdio(const SandboxCommand& command, bool pipe_stdin, ChildStdio& io, SandboxResult& result) {
  if (pipe2(io.out, O_CLOEXEC) != 0 || pipe2(io.err, O_CLOEXEC) != 0) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  io.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (pipe_stdin) {
    if (pipe2(io.in, O_CLOEXEC) != 0) {
      result.start_error = std::string("pipe: ") + std::strerror(errno);
      return false;
    }
  } else if (!command.stdin_data.empty()) {
    if (command.stdin_data.size() > 4096 || pipe2(io.in, O_CLOEXEC) != 0) {
      result.start_error = "cannot pass stdin data to the child";
      return false;
    }
    const ssize_t w = write(io.in[1], command.stdin_data.data(), command.stdin_data.size());
    close(ChildStdio::release(io.in[1]));
    if (w != static_cast<ssize_t>(command.stdin_data.size())) {
      result.start_error = "cannot pass stdin data to the child";
      return false;
    }
  }
  return true;
}

// Everything the forked child uses, prepared before fork(): after fork() in a threaded process
// only async-signal-safe calls are allowed until execve().
struct ExecPlan {
  std::string exe;
  std::vector<char*> argv, envp;
  std::string workdir;
  rlim_t fsize = 0, cpu_s = 0, nproc = 0, address_space = 0;
  bool keep_capabilities = false;  // bwrap needs them
  int pass[8] = {};
  int passed = 0;
};

ExecPlan exec_plan(const SandboxCommand& command, const std::string& exe, std::vector<std::string>& args,
                   std::vector<std::string>& env) {
  ExecPlan plan;
  plan.exe = exe;
  for (auto& a : args) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  for (auto& e : env) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  plan.workdir = command.working_dir.string();
  plan.fsize = static_cast<rlim_t>(command.limits.max_file_mb) * 1024 * 1024;
  plan.address_space = static_cast<rlim_t>(std::max<int64_t>(command.limits.max_address_space_mb, 0)) * 1024 * 1024;
  plan.cpu_s = static_cast<rlim_t>(command.limits.max_cpu_s > 0 ? command.limits.max_cpu_s
                                                                : 2 * command.limits.wall_time_s + 60);
  // A backstop only (it counts all the user's processes, and root is exempt): the process-tree
  // count the parent watches is the limit that holds.
  plan.nproc = static_cast<rlim_t>(std::max<int64_t>(command.limits.max_processes, 1) * 16);
  plan.keep_capabilities = command.kind == SandboxKind::namespaces || command.launches_bwrap;
  plan.passed = static_cast<int>(std::min<size_t>(command.pass_fds.size(), 8));
  for (int i = 0; i < plan.passed; ++i) plan.pass[i] = command.pass_fds[static_cast<size_t>(i)];
  return plan;
}

// The forked child: own session (so the whole group can be killed), limits, descriptors, then
// exec. Async-signal-safe calls only.
[[noreturn]] void exec_child(ExecPlan& plan, const ChildStdio& io) {
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
  rlimit fs{plan.fsize, plan.fsize};
  setrlimit(RLIMIT_FSIZE, &fs);
  rlimit cpu{plan.cpu_s, plan.cpu_s};
  setrlimit(RLIMIT_CPU, &cpu);
  rlimit np{plan.nproc, plan.nproc};
  setrlimit(RLIMIT_NPROC, &np);
  if (plan.address_space > 0) {
    rlimit as{plan.address_space, plan.address_space};
    setrlimit(RLIMIT_AS, &as);
  }
  // bwrap run by root needs its capabilities to map uid 0 into the namespace (CAP_SETFCAP since
  // Linux 5.12); it drops them all for the command it runs (--cap-drop ALL).
  if (!plan.keep_capabilities) drop_privileges();
  else prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  // The passed descriptors become 3, 4, ...: first moved above that range (and above stdio,
  // which is replaced next), so that none is overwritten before it is placed.
  const int passed = plan.passed;
  for (int i = 0; i < passed; ++i)
    if ((plan.pass[i] = fcntl(plan.pass[i], F_DUPFD, 3 + passed)) < 0) _exit(126);
  if (io.in[0] >= 0) dup2(io.in[0], STDIN_FILENO);
  else if (io.devnull >= 0) dup2(io.devnull, STDIN_FILENO);
  dup2(io.out[1], STDOUT_FILENO);
  dup2(io.err[1], STDERR_FILENO);
  for (int i = 0; i < passed; ++i)
    if (dup2(plan.pass[i], 3 + i) < 0) _exit(126);
  // A session keyring of its own: bubblewrap keeps the caller's, which every sandbox (and
  // kernelbot) would otherwise share, a place for one job's process to leave keys for another's.
  syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr);
  // Inherited descriptors the parent's libraries left open without O_CLOEXEC are closed here.
  syscall(SYS_close_range, static_cast<unsigned>(3 + passed), ~0u, 0u);
  int err = 0;
  if (!plan.workdir.empty() && chdir(plan.workdir.c_str()) != 0) err = errno;
  if (err == 0) {
    execve(plan.exe.c_str(), plan.argv.data(), plan.envp.data());
    err = errno;
  }
  _exit(err == ENOENT ? 127 : 126);  // the shell's codes for "not found" / "cannot execute"
}

}  // namespace

SpawnedChild spawn_sandboxed(const SandboxCommand& command, bool pipe_stdin, SandboxResult& result) {
  SpawnedChild child;
  if (command.argv.empty()) {
    result.start_error = "empty command";
    return child;
  }
  std::vector<std::string> env = child_environment(command);
  std::string exe;
  std::vector<std::string> args = child_argv(command, env, exe, result);
  if (args.empty()) return child;
  ChildStdio io;
  if (!open_child_stdio(command, pipe_stdin, io, result)) return child;
  ExecPlan plan = exec_plan(command, exe, args, env);
  const pid_t pid = fork();
  if (pid == 0) exec_child(plan, io);
  if (pid < 0) {
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return child;  // io closes every descriptor
  }
  result.started = true;
  child.pid = pid;
  child.stdin_fd = pipe_stdin ? ChildStdio::release(io.in[1]) : -1;
  child.stdout_fd = ChildStdio::release(io.out[0]);
  child.stderr_fd = ChildStdio::release(io.err[0]);
  return child;  // io closes the child's ends and /dev/null
}

namespace {

// The one thread that forks lasting children; never joined (it ends with the process, and with
// it, through PR_SET_PDEATHSIG, every child it forked).
class LastingSpawner {
 public:
  static LastingSpawner& instance() {
    static auto* spawner = new LastingSpawner();  // never destroyed: its thread serves until exit
    return *spawner;
  }
  void run(const std::function<void()>& task) {
    std::unique_lock lock(mutex_);
    const uint64_t mine = ++submitted_;
    tasks_.push_back(&task);
    wake_.notify_all();
    done_.wait(lock, [&] { return finished_ >= mine; });
  }

 private:
  LastingSpawner() {
    std::thread([this] {
      std::unique_lock lock(mutex_);
      for (;;) {
        wake_.wait(lock, [&] { return !tasks_.empty(); });
        const std::function<void()>* task = tasks_.front();
        tasks_.pop_front();
        lock.unlock();
        (*task)();
        lock.lock();
        ++finished_;
        done_.notify_all();
      }
    }).detach();
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<const std::function<void()>*> tasks_;
  uint64_t submitted_ = 0, finished_ = 0;
};

}  // namespace

SpawnedChild spawn_sandboxed_lasting(const SandboxCommand& command, bool pipe_stdin, SandboxResult& result) {
  SpawnedChild child;
  const std::function<void()> task = [&] { child = spawn_sandboxed(command, pipe_stdin, result); };
  LastingSpawner::instance().run(task);
  return child;
}

SandboxResult run_sandboxed(const SandboxCommand& command) {
  SandboxResult result;
  const auto start = Clock::now();
  const SpawnedChild child = spawn_sandboxed(command, false, result);
  if (!result.started) return result;
  const pid_t pid = child.pid;
  const int out_pipe[2] = {child.stdout_fd, -1};
  const int err_pipe[2] = {child.stderr_fd, -1};

  BoundedOutput out(command.limits.max_output_bytes), err(command.limits.max_output_bytes);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  bool open_fds[2] = {true, true};
  auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  auto deadline = start + seconds(command.limits.wall_time_s);
  auto kill_at = Clock::time_point::max();
  auto next_tree_check = start;
  auto drain_until = Clock::time_point::max();
  // A child killed that still has not exited (a process stuck in the kernel) is not waited for.
  auto give_up_at = Clock::time_point::max();
  // Every process seen in the child's tree: one that left it (its parent exited first) is still
  // killed when the child ends.
  std::map<pid_t, TreeProcess> seen;
  bool exited = false;
  int status = 0;
  char buf[65536];
  auto end_tree = [&](Clock::time_point now) {
    if (give_up_at != Clock::time_point::max()) return;
    kill_process_tree(pid);
    give_up_at = now + std::chrono::seconds(5);
  };

  while (true) {
    auto now = Clock::now();
    if (!exited) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        result.wall_s = std::chrono::duration<double>(now - start).count();
        // What it started dies with it: its process group, and whatever left the group or the tree.
        kill(-pid, SIGKILL);
        seen.erase(pid);
        std::vector<TreeProcess> rest;
        for (const auto& [member, process] : seen) rest.push_back(process);
        kill_processes(rest);
        // A descendant no one could find may hold the pipes open: they are read a little longer, not waited for.
        drain_until = now + std::chrono::seconds(2);
      } else if (now > give_up_at) {
        break;
      }
    }
    if (exited && ((!open_fds[0] && !open_fds[1]) || now > drain_until)) break;
    if (!exited) {
      if (now >= deadline && kill_at == Clock::time_point::max()) {
        result.timed_out = true;
        kill(-pid, SIGTERM);  // a compiler removes its temporary files
        kill_at = now + seconds(command.limits.term_grace_s);
      }
      if (now >= kill_at) end_tree(now);
      if (now >= next_tree_check) {
        ProcessTreeUsage usage = process_tree_usage(pid);
        for (const TreeProcess& member : usage.members) seen.emplace(member.pid, member);
        result.peak_rss_mb = std::max(result.peak_rss_mb, usage.rss_mb);
        result.peak_processes = std::max(result.peak_processes, usage.processes);
        if (command.limits.max_rss_mb > 0 && usage.rss_mb > command.limits.max_rss_mb) {
          result.killed_for_memory = true;
          end_tree(now);
        }
        // The tree includes bwrap's own two processes; a count over the limit is a fork bomb.
        if (usage.processes > command.limits.max_processes + 2) {
          result.killed_for_processes = true;
          end_tree(now);
        }
        next_tree_check = now + std::chrono::milliseconds(50);
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
  if (exited) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  } else {
    // Killed, and reaped whenever the kernel lets it go; the caller's bound holds meanwhile.
    result.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    result.signal = SIGKILL;
    std::thread([pid] {
      int ignored = 0;
      waitpid(pid, &ignored, 0);
    }).detach();
  }
  // Whatever the child printed may carry a secret it found: nothing unredacted leaves here.
  result.out = redact(out.text(result.out_truncated));
  result.err = redact(err.text(result.err_truncated));
  return result;
}

}  // namespace kb::profiler
