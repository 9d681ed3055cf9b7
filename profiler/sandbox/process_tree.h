// A sandboxed child's process tree, read from /proc: every process descended from the child by
// parent pid, which a new session, a new process group or a pid namespace does not leave (bwrap's
// init and the compiler under it, cicc under nvcc, a sleeper that called setsid()). What it holds
// (the RSS the memory limit watches, the count the process limit watches) and how it is ended.
//
// Killing a process group is not enough to end one: bwrap's init makes a session of its own, and
// any process may leave the group (setsid, setpgid) and keep the child's output pipes open. Nor is
// killing the tree's processes one by one: a process whose parent dies first is adopted by init
// and leaves the tree before it is found. So the tree is frozen first (SIGSTOP: a stopped process
// neither forks nor exits, so its children stay where they are), then killed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace kb::profiler {

// One process, told apart from a later one that reuses its pid by its start time.
struct TreeProcess {
  pid_t pid = 0;
  unsigned long long start_time = 0;  // clock ticks after boot (/proc/<pid>/stat, field 22)
};

struct ProcessTreeUsage {
  int64_t rss_mb = 0;
  int64_t processes = 0;
  std::vector<TreeProcess> members;  // root first
};

// What the tree under `root` (root included) holds now.
ProcessTreeUsage process_tree_usage(pid_t root);

// Kills every process of the tree under `root`, root included, and root's process group: the
// tree is stopped pass after pass until no new process appears in it, then each is killed. In a
// pid namespace, the death of its init (bwrap's) kills whatever was not found. Returns at once;
// the caller reaps root.
void kill_process_tree(pid_t root);

// Kills those of `processes` that still run (the same start time: not a process that reused the
// pid), wherever they are now: former members of a tree that left it when their parent exited.
void kill_processes(const std::vector<TreeProcess>& processes);

}  // namespace kb::profiler
