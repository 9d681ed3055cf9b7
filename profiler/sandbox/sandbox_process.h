// Runs one command as a sandboxed child process: candidate code (through kernelbot-harness), the
// compiler on candidate sources, compute-sanitizer. The child gets its own session and process
// group, stdin from /dev/null (or the caller's few bytes), a scrubbed environment, no capabilities, no core dumps, limits on
// file size, CPU time, processes, wall time and host memory; stdout and stderr are captured up to
// a bound and redacted (secret_redactor.h). With SandboxKind::namespaces it runs inside bubblewrap
// (sandbox_launcher.h): no network, only the files its FilesystemView names.
//
// Processes: RLIMIT_NPROC counts every process of the user (and root ignores it), so it is only a
// backstop; the parent also counts the child's process tree and kills it past max_processes. A
// fork bomb in the namespace sandbox dies with its pid namespace when the tree is killed.
//
// Host memory: RLIMIT_AS cannot be used (the CUDA driver reserves terabytes of virtual address
// space at start-up, so any useful limit makes cuInit fail), and RLIMIT_DATA counts private
// writable mappings, which the driver also creates in sizes that depend on the driver version and
// the GPU's memory, so a limit that is safe on one machine kills CUDA on another. What we want to
// bound is the RAM the child actually takes, so the parent watches the resident set (RSS from
// /proc/<pid>/stat) of every process descended from the child (a new session or a pid namespace
// does not leave that tree) and kills the tree when the sum exceeds the limit. A compiler starts
// no CUDA: its processes may also have an RLIMIT_AS (max_address_space_mb), which stops an
// allocation too fast for the watch.
//
// Ending: every limit ends the whole tree (process_tree.h), not only the child's process group,
// which bwrap's init and any process that calls setsid() have left; at the wall-time limit the
// group first gets SIGTERM and term_grace_s (a compiler removes its temporary files). When the
// child exits, whatever of its tree was seen and still runs is killed; its output pipes are read
// two seconds more, not waited on; a child that does not exit after SIGKILL is left to a reaper
// thread after five seconds. So run_sandboxed returns within the wall limit, the grace and a few
// seconds, whatever the child started.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "profiler/sandbox/process_tree.h"
#include "profiler/sandbox/sandbox_launcher.h"

namespace kb::profiler {

// What the child may use.
struct SandboxLimits {
  double wall_time_s = 120;  // then SIGTERM to the process group, SIGKILL after the grace
  double term_grace_s = 2;
  int64_t max_rss_mb = 0;             // 0 = unlimited; the sum over the process group
  int64_t max_file_mb = 4096;         // RLIMIT_FSIZE: largest file the child may write
  size_t max_output_bytes = 1 << 20;  // per stream; the middle of longer output is dropped
  int64_t max_processes = 256;        // in the child's process tree; then it is killed
  double max_cpu_s = 0;               // RLIMIT_CPU per process; 0 = twice the wall time and a minute
  // RLIMIT_AS of each process, a backstop for an allocation faster than the RSS watch; 0 = none.
  // Never for a process that initializes CUDA (see above): for compilers.
  int64_t max_address_space_mb = 0;
};

// One command to run.
struct SandboxCommand {
  std::vector<std::string> argv;      // argv[0] is looked up in the child's PATH when it has no '/'
  std::filesystem::path working_dir;  // empty: the parent's
  // Added after scrubbing (the caller's own settings: CUDA_INJECTION64_PATH, ...).
  std::map<std::string, std::string> extra_env;
  // false: the parent's environment (the user's own workload), still without secret-looking names.
  bool scrub_env = true;
  SandboxLimits limits;
  SandboxKind kind = SandboxKind::process;  // namespaces: inside bubblewrap, seeing only `view`
  FilesystemView view;                      // the working directory should be in view.writable
  // Given to the child on stdin (at most 4 KiB; /dev/null when empty): the harness's result key.
  std::string stdin_data;
  // Descriptors of the parent given to the child as 3, 4, ... (at most 8): a private channel
  // (bubblewrap's own pid 1 keeps only 0-2, which any process in the sandbox can open through
  // /proc/1/fd; descriptors from 3 up reach the command alone).
  std::vector<int> pass_fds;
  // Whether the command is bwrap itself (the namespace check): bwrap run by root needs its
  // capabilities to map uid 0 into its namespace, and drops them for what it runs.
  bool launches_bwrap = false;
};

// How it ended.
struct SandboxResult {
  bool started = false;
  std::string start_error;  // why it did not start (executable not found, fork failed)
  int exit_code = -1;       // when it exited normally
  int signal = 0;           // when a signal ended it
  bool timed_out = false;
  bool killed_for_memory = false;
  bool killed_for_processes = false;  // its process tree grew past max_processes
  double wall_s = 0;
  int64_t peak_rss_mb = 0;
  int64_t peak_processes = 0;  // in the tree, bwrap's own included
  std::string out, err;
  bool out_truncated = false, err_truncated = false;

  bool succeeded() const {
    return started && !timed_out && !killed_for_memory && !killed_for_processes && signal == 0 && exit_code == 0;
  }
  // "exit code 3", "killed by signal 11 (SIGSEGV)", "timed out after 120 s", ...
  std::string describe() const;
};

// Whether an inherited variable may pass into a sandboxed child: PATH, HOME, LANG, LC_*, TMPDIR,
// TZ, LD_LIBRARY_PATH, CUDA_* (CUDA_VISIBLE_DEVICES included), unless the name looks like a
// secret (env_name_looks_secret).
bool env_name_allowed(const std::string& name);

// The child's environment as "NAME=value" strings: the allowed part of `parent` plus `extra`.
std::vector<std::string> scrubbed_environment(char** parent, const std::map<std::string, std::string>& extra);

// Makes this process non-dumpable, so that its /proc entries (environ, mem, maps) cannot be read
// by its children, which run as the same user, even where no namespace hides it. Called first
// thing in main(); the injection and ptrace-style reads it blocks need CAP_SYS_PTRACE, which
// sandboxed children are stripped of.
void harden_parent_process();

// A sandboxed child left running (sandboxed_service.h): its pid, the leader of its own session and
// process group, and the parent's ends of its stdin, stdout and stderr pipes (close-on-exec).
struct SpawnedChild {
  pid_t pid = -1;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
};

// Starts `command` as run_sandboxed does (environment, limits, privileges, bubblewrap) and returns
// at once. With `pipe_stdin` the child's stdin is a pipe the caller writes (stdin_data is then
// not used). When it cannot start, result.start_error says why and the pid is -1.
SpawnedChild spawn_sandboxed(const SandboxCommand& command, bool pipe_stdin, SandboxResult& result);

// spawn_sandboxed for a child that must outlive the calling thread (the judge's session, which a
// GPU worker of `kernelbot run` starts and the main thread may use after the worker is gone).
// The child dies with its parent through PR_SET_PDEATHSIG (ours, and bubblewrap's
// --die-with-parent), which fires when the *thread* that forked it ends, not the process: so the
// fork happens on one thread that lives as long as kernelbot, and the child still dies with it.
SpawnedChild spawn_sandboxed_lasting(const SandboxCommand& command, bool pipe_stdin, SandboxResult& result);

// Keeps the first and the last half of `limit` bytes of a stream: a long log's beginning says
// what ran, its end says how it died.
class BoundedOutput {
 public:
  explicit BoundedOutput(size_t limit) : half_(std::max<size_t>(limit / 2, 1)) {}
  void append(const char* data, size_t n);
  // The text kept, with a line saying how much of the middle was dropped (then `truncated`).
  std::string text(bool& truncated) const;

 private:
  size_t half_;
  size_t total_ = 0;
  std::string head_, tail_;
};

// Runs the command to completion (or to a limit). Never throws for the child's behaviour; safe
// to call from several threads at once.
SandboxResult run_sandboxed(const SandboxCommand& command);

// Looks `name` up in `path_list` (a PATH value); empty when not found. Names with '/' pass through.
std::string find_executable(const std::string& name, const std::string& path_list);

}  // namespace kb::profiler
