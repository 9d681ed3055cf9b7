#include "profiler/judge/wire/variant_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/errors.h"
#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/server_identity.h"

namespace kb::judge {
namespace {

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return "killed by signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : "");
}

// The server's environment: the judge's, with every module loaded when the variant library is
// (CUDA_MODULE_LOADING=EAGER). Lazily loaded, a kernel's first launch synchronizes with the
// device; inside a traced verification call it would wait for the call's gate (traced_call.h) and
// start only after it, where the gate cannot see whether it was ordered with the caller's stream
// (seen on an H100, 2026-11-26: a hidden-stream candidate's first verification call passed unseen;
// it was caught at the second). Loading eagerly also spares each job the gate's 20 ms timeout
// per kernel launched for the first time. CUDA_LAUNCH_BLOCKING is dropped: with it the gate's own
// launch would wait out the gate's timeout before the call began (and timing would be meaningless).
std::vector<std::string> server_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("CUDA_MODULE_LOADING=") || entry.starts_with("CUDA_MODULE_DATA_LOADING=") ||
        entry.starts_with("CUDA_LAUNCH_BLOCKING="))
      continue;
    env.emplace_back(entry);
  }
  env.emplace_back("CUDA_MODULE_LOADING=EAGER");
  env.emplace_back("CUDA_MODULE_DATA_LOADING=EAGER");
  return env;
}

}  // namespace

VariantProcess::VariantProcess(Who who, int device, bool verbose) : who_(who), device_(device) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(std::string("socketpair: ") + std::strerror(errno));
  // The same argv and environment for either server: nothing says whose variant it serves.
  std::vector<std::string> args = server_arguments(device, verbose);
  std::vector<std::string> env = server_environment();
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t judge = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The server dies with the judge, writes nothing to the judge's stdout, and holds only its
    // socket: no other descriptor of the judge's reaches variant code.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != judge) ::_exit(127);
    ::dup2(sv[1], 3);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::close_range(4, ~0U, 0);
    ::execve("/proc/self/exe", argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(sv[1]);
  fd_ = sv[0];
  pid_ = pid;
  spdlog::debug("the {}'s server is process {}", who == Who::candidate ? "candidate" : "original", pid);
  // A server that stops reading cannot hold the judge in a send (the job's text, a request).
  const timeval send_timeout{60, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
}

void VariantProcess::give_job(const std::string& job_text) {
  if (given_job_) return;
  given_job_ = true;
  // No variant code has run in the server yet: failing to hand it the job is the harness's fault.
  if (pid_ <= 0 || !send_text(fd_, job_text))
    throw HarnessError(std::string(who_ == Who::candidate ? "the candidate's" : "the original's") +
                       " server did not take its job: " + std::strerror(errno));
}

bool VariantProcess::await_start(double timeout_s) {
  if (started_) return loaded_;
  bool timed_out = false;
  // Ready: the server's own start (the job, the CUDA context), before it loads any variant code.
  Reply ready;
  if (!receive_reply(fd_, ready, timeout_s, &timed_out)) gone(timed_out, false, "start-up");
  started_ = true;
  if (ready.status != Status::ok) {
    harness_failed_ = true;
    load_error_ = untrusted_note(ready, 600);
    return false;
  }
  // Loaded: said after the library's initializers ran, so anything but ok is the library's failure.
  Reply hello;
  if (!receive_reply(fd_, hello, timeout_s, &timed_out)) gone(timed_out, false, "loading its library");
  loaded_ = hello.status == Status::ok;
  if (!loaded_) load_error_ = untrusted_note(hello, 600);
  return loaded_;
}

bool VariantProcess::renew_job(const std::string& job_text, double timeout_s) {
  if (pid_ <= 0 || !loaded_) return false;
  // A candidate of the last job, same user, may have stopped it: that was its job's problem.
  ::kill(pid_, SIGCONT);
  Request q;
  q.op = Op::renew;
  if (!send_request(fd_, q) || !send_text(fd_, job_text)) return false;
  Reply reply;
  return receive_reply(fd_, reply, timeout_s, nullptr) && reply.status == Status::ok;
}

bool VariantProcess::waiting_for_job() {
  if (pid_ <= 0 || given_job_) return false;
  if (::waitpid(pid_, nullptr, WNOHANG) != 0) {  // ended (reaped here), or not ours to wait for
    pid_ = -1;
    return false;
  }
  ::kill(pid_, SIGCONT);
  return true;
}

VariantProcess::~VariantProcess() {
  if (pid_ > 0 && given_job_) {
    Request q;
    q.op = Op::quit;
    q.value = quit_value_;
    if (send_request(fd_, q)) {
      Reply r;
      receive_reply(fd_, r, quit_timeout_s_, nullptr);
    }
  }
  if (pid_ > 0) {  // a server that never got a job has nothing to finish
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (fd_ >= 0) ::close(fd_);
}

std::string VariantProcess::end_status() {
  if (pid_ <= 0) return "ended";
  int status = 0;
  // A dying process may take a moment to close its socket and exit; then it is killed.
  for (int i = 0; i < 50; ++i) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      if (WIFSIGNALED(status)) return signal_text(WTERMSIG(status));
      exit_code_ = WEXITSTATUS(status);
      return (server_exit_is_crash(exit_code_) ? "crashed: " : "ended with ") + describe_server_exit(exit_code_);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return "stopped answering (killed)";
}

void VariantProcess::gone(bool timed_out, bool sticky, const std::string& during) {
  std::string how;
  if (timed_out) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    how = "did not answer (killed)";
  } else {
    how = end_status();
    // The server is not told whose variant it serves: its crash line comes from here, with the
    // judge's phase (a sticky fault's was printed when its reply came).
    if (!sticky && server_exit_is_crash(exit_code_)) print_crash_line(who_, describe_server_exit(exit_code_));
  }
  const std::string whose = who_ == Who::candidate ? "the candidate's process" : "the original's process";
  throw VariantGone(who_, timed_out, sticky, whose + " " + how + " during " + during);
}

Reply VariantProcess::ask(const Request& request, double timeout_s) {
  const Request& r = request;
  if (pid_ <= 0) gone(false, false, to_string(r.op));
  if (!send_request(fd_, r)) gone(false, false, to_string(r.op));
  Reply reply;
  bool timed_out = false;
  if (!receive_reply(fd_, reply, timeout_s, &timed_out)) gone(timed_out, false, to_string(r.op));
  if (reply.status == Status::sticky_fault) {
    last_fault_ = untrusted_note(reply, 300);
    // The crash line, with the judge's phase (the server is told none): kernelbot quotes it.
    print_crash_line(who_, last_fault_);
    gone(false, true, to_string(r.op));
  }
  return reply;
}

}  // namespace kb::judge
