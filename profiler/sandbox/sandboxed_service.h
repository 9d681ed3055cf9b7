// A sandboxed child that serves several requests in turn (the judge's session, judge_session.h):
// started once as run_sandboxed starts its children (environment, limits, bubblewrap), then one
// request frame in and one reply frame out at a time (frame_io.h), on a channel of two pipes the
// child gets as descriptors 3 (requests) and 4 (replies). Not on its stdin and stdout: inside
// bubblewrap those stay open in the sandbox's pid 1, where any process of the sandbox can open
// them through /proc/1/fd and write a reply of its own. The child's stdin is /dev/null; what it
// prints on stdout counts as stderr (untrusted text).
// Each exchange has its own wall-time limit, watches the child's process tree for memory and
// process count as run_sandboxed does, and collects the stderr written during it (redacted,
// bounded). A child that times out, breaks a limit, breaks the protocol or exits ends the
// session: its whole process group is killed and reaped.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/frame_io.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {

class SandboxedService {
 public:
  // Starts the child (command.stdin_data and pass_fds are not used: the channel is passed).
  // Whether it started: alive(); why not: the first exchange's process.start_error.
  explicit SandboxedService(SandboxCommand command, size_t max_reply_bytes = 256u << 20);
  ~SandboxedService();
  SandboxedService(const SandboxedService&) = delete;
  SandboxedService& operator=(const SandboxedService&) = delete;

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
  // Queues a frame that expects no reply (a key): it goes out before the next exchange's request.
  void post(const std::string& frame);

  // Closes the child's stdin, waits up to the command's term_grace_s for it to exit, then kills
  // its group. The destructor does the same.
  void close();

 private:
  void end(int signal_to_group, Exchange* x);  // kills the group (when signal_to_group) and reaps
  // After the child was reaped with `status`: the rest of its group killed, the pipes closed, how
  // it ended recorded in `x` (when given).
  void reaped(int status, Exchange* x);

  SandboxCommand command_;
  SandboxResult start_;
  pid_t pid_ = -1;
  int requests_ = -1, replies_ = -1;  // the channel, the parent's ends
  int out_ = -1, err_ = -1;           // the child's stdout and stderr, both untrusted text
  std::string posted_;
  FrameReader reader_;
};

}  // namespace kb::profiler
