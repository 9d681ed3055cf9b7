// The judge's handle on one variant server: starts `kernelbot-harness --serve` as a child with
// one end of a socket pair, asks it one thing at a time, and notices when it dies or stops
// answering. The judge never loads variant code; everything it knows about a variant comes
// through here or from the buffers it owns.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/wire/server_wire.h"

namespace kb::judge {

// The server died, stopped answering, or broke the protocol. The judge builds the verdict from
// how it ended (`how`: "killed by signal 11 (SIGSEGV)", "did not answer within 30 s"), never from
// what it printed.
struct VariantGone : Error {
  VariantGone(Who w, bool t, bool s, const std::string& what) : Error(what), who(w), timed_out(t), sticky(s) {}
  Who who;
  bool timed_out;
  bool sticky;  // it reported a fault that lost its CUDA context, then ended
};

class VariantProcess {
 public:
  // Starts a server for `device` without waiting for it; it starts up (process, libraries) while
  // the judge reads the job, and creates its CUDA context once give_job hands it the job.
  VariantProcess(Who who, int device, bool verbose);
  ~VariantProcess();
  VariantProcess(const VariantProcess&) = delete;
  VariantProcess& operator=(const VariantProcess&) = delete;

  // Hands the server its job (the job file's text, as the judge read it); the server loads the
  // library the job names for it. Throws HarnessError when the server did not take it (it ran no
  // variant code yet, so that is never the candidate's fault).
  void give_job(const std::string& job_text);
  // Waits (up to `timeout_s`) for the server to say whether it loaded its library; returns that.
  // Throws VariantGone when it dies or stays silent. Further calls return the first answer.
  bool await_start(double timeout_s);
  // Whether the library loaded (after await_start); when not, `load_error()` says why.
  bool loaded() const { return loaded_; }
  const std::string& load_error() const { return load_error_; }
  // Whether the server's own start failed (no CUDA context, an unreadable job): not the variant's fault.
  bool harness_failed() const { return harness_failed_; }

  // One request and its reply. Throws VariantGone when the server dies, times out (it is then
  // killed) or answers nonsense; a reply with Status::sticky_fault also ends it (VariantGone).
  Reply ask(const Request& r, double timeout_s);

  // A session's next job for a server kept from the last one (the original's): sends it the new
  // job's text (Op::renew) and waits up to `timeout_s` for it to take it. False when it did not
  // (dead, silent, or it refused): the judge then starts a fresh server. Never throws.
  bool renew_job(const std::string& job_text, double timeout_s);

  // Under compute-sanitizer: the quit that ends the server asks it to destroy its CUDA context
  // first (kQuitDestroyingContext, server_wire.h), so that memcheck's leak check reports, and
  // waits up to `timeout_s` for it to answer before the server is killed.
  void destroy_context_at_quit(double timeout_s) {
    quit_value_ = kQuitDestroyingContext;
    quit_timeout_s_ = timeout_s;
  }

  // A server started ahead of its job (spare_servers.h) takes its role when it is handed one.
  void take_role(Who who) { who_ = who; }
  // Whether it is still waiting for its job: started, given none, not ended. A stopped one (a
  // candidate of the same user can stop it) is woken first.
  bool waiting_for_job();

  Who who() const { return who_; }
  int device() const { return device_; }
  pid_t pid() const { return pid_; }
  // The fault a sticky_fault reply named (untrusted, sanitized): for the crash's known cause only.
  const std::string& last_fault() const { return last_fault_; }

 private:
  [[noreturn]] void gone(bool timed_out, bool sticky, const std::string& during);
  std::string end_status();  // waits for the child and describes how it ended

  Who who_;
  int device_;
  int fd_ = -1;
  int pid_ = -1;
  bool given_job_ = false;
  bool started_ = false;  // the start-up reply was read
  bool loaded_ = false;
  bool harness_failed_ = false;
  std::string load_error_;
  std::string last_fault_;
  int exit_code_ = -1;  // the server's exit code once it ended by exiting
  int32_t quit_value_ = 0;
  double quit_timeout_s_ = 5;
};

}  // namespace kb::judge
