// A sandboxed child that serves several requests in turn (the judge's session, judge_session.h):
// started once as run_sandboxed starts its children (environment, limits, bubblewrap), then one
// request frame in on its stdin and one reply frame out on its stdout at a time (frame_io.h).
// Each exchange has its own wall-time limit, watches the child's process tree for memory and
// process count as run_sandboxed does, and collects the stderr written during it (redacted,
// bounded). A child that times out, breaks a limit, breaks the protocol or exits ends the
// session: its whole process group is killed and reaped.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/frame_io.h"
#include "profiler/sandbox_process.h"

namespace kb::profiler {

class SandboxSession {
 public:
  // Starts the child (command.stdin_data is not used: stdin carries the requests). Whether it
  // started: alive(); why not: the first exchange's process.start_error.
  explicit SandboxSession(const SandboxCommand& command, size_t max_reply_bytes = 256u << 20);
  ~SandboxSession();
  SandboxSession(const SandboxSession&) = delete;
  SandboxSession& operator=(const SandboxSession&) = delete;

  bool alive() const { return pid_ > 0; }

  struct Exchange {
    std::optional<std::string> reply;  // the reply frame, when one came
    // This exchange: wall_s, err (what the child wrote to stderr meanwhile), peaks, and, when the
    // session ended during it, how (timed_out, killed_for_*, exit_code or signal).
    SandboxResult process;
    std::string protocol_error;  // the child wrote something that is not a frame (the session ended)
  };
  // Sends `request` and waits up to `timeout_s` for the reply. Never throws for the child's behaviour.
  Exchange exchange(const std::string& request, double timeout_s);

  // Closes the child's stdin, waits up to the command's term_grace_s for it to exit, then kills
  // its group. The destructor does the same.
  void close();

 private:
  void end(int signal_to_group, Exchange* x);  // kills the group (when signal_to_group) and reaps

  SandboxCommand command_;
  SandboxResult start_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  FrameReader reader_;
};

}  // namespace kb::profiler
