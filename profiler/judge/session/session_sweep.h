// What a long-lived judge (kernelbot-harness --session) clears after each job, so that nothing a
// candidate left behind reaches the next job: the candidate's server is gone by then, but its
// code may have started processes of its own (a daemon that double-forked and called setsid), and
// written files or System V IPC objects another candidate could read.
//
// Processes: the judge is a child subreaper (PR_SET_CHILD_SUBREAPER), so every process started
// under it, however it detached, is re-parented to the judge when its parent dies and can never
// leave its tree. Killing every child but the ones it keeps, then their orphans, until none is
// left, ends all of them. A process tree that keeps growing past `max_rounds` is not cleared:
// then the judge ends its session (kernelbot starts a fresh sandbox, whose pid namespace takes
// everything in the old one down with it).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::judge {

// The process ids whose parent is `parent` (from /proc/<pid>/stat).
std::vector<pid_t> child_processes(pid_t parent);

// Kills (SIGKILL) and reaps every child of this process except `keep`, and the orphans that come
// back to it, for at most `max_rounds` rounds. Returns how many it killed, or -1 when children
// were still left after the last round.
int kill_stray_children(const std::vector<pid_t>& keep, int max_rounds = 200);

// Removes everything inside `dir` (not `dir` itself), restoring permissions a process took away
// (a directory made unreadable). Returns false, with `problem` set, when something stays.
bool empty_directory(const std::filesystem::path& dir, std::string& problem);

// Removes every System V shared memory segment, semaphore set and message queue this process can
// see: in the namespace sandbox, the sandbox's own (it has an IPC namespace of its own). Returns
// how many it removed.
int remove_sysv_ipc_objects();

// Clears the keys this user's keyrings hold (the user, user-session and session keyrings): a
// process of one job could leave a key that a process of a later job reads. Returns whether all
// three cleared.
bool clear_user_keyrings();

// What another process of this user can change about a process without any privilege: its nice
// value, the CPUs it may run on, its resource limits. Compared before a process started for one
// job serves the next.
struct ProcessSettings {
  int nice = 0;
  std::string cpus;                                   // the affinity mask, as bytes
  std::vector<std::pair<uint64_t, uint64_t>> limits;  // soft and hard, per resource
  bool operator==(const ProcessSettings&) const = default;
};
// The settings of `pid` (0: this process); nullopt when they cannot be read (it is gone).
std::optional<ProcessSettings> process_settings(pid_t pid);

}  // namespace kb::judge
