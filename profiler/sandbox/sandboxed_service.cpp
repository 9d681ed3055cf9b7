#include "profiler/sandbox/sandboxed_service.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>

#include "common/secret_redactor.h"

namespace kb::profiler {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

SandboxedService::SandboxedService(SandboxCommand command, size_t max_reply_bytes)
    : command_(std::move(command)), reader_(max_reply_bytes) {
  // A write to a child that died must fail with EPIPE, not end kernelbot.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  int requests[2], replies[2];
  if (::pipe2(requests, O_CLOEXEC) != 0) {
    start_.start_error = "cannot create the session's channel";
    return;
  }
  if (::pipe2(replies, O_CLOEXEC) != 0) {
    ::close(requests[0]), ::close(requests[1]);
    start_.start_error = "cannot create the session's channel";
    return;
  }
  command_.stdin_data.clear();
  command_.pass_fds = {requests[0], replies[1]};  // the child's 3 and 4
  const SpawnedChild child = spawn_sandboxed_lasting(command_, false, start_);
  ::close(requests[0]);
  ::close(replies[1]);
  if (!start_.started) {
    ::close(requests[1]), ::close(replies[0]);
    return;
  }
  pid_ = child.pid;
  requests_ = requests[1];
  replies_ = replies[0];
  out_ = child.stdout_fd;
  err_ = child.stderr_fd;
  for (int fd : {requests_, replies_, out_, err_}) set_nonblocking(fd);
}

SandboxedService::~SandboxedService() { close(); }

void SandboxedService::post(const std::string& frame) { posted_ += std::to_string(frame.size()) + "\n" + frame; }

void SandboxedService::close() {
  if (pid_ <= 0) return;
  ::close(requests_);
  requests_ = -1;
  const auto until = Clock::now() + std::chrono::duration<double>(command_.limits.term_grace_s);
  int status = 0;
  while (Clock::now() < until) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) return reaped(status, nullptr);
    ::usleep(10000);
  }
  end(SIGKILL, nullptr);
}

void SandboxedService::end(int signal_to_group, Exchange* x) {
  if (pid_ <= 0) return;
  // SIGKILL ends the whole tree: bwrap's init and whatever left the group die with it too.
  if (signal_to_group == SIGKILL) kill_process_tree(pid_);
  else if (signal_to_group) ::kill(-pid_, signal_to_group);
  int status = 0;
  const pid_t w = ::waitpid(pid_, &status, 0);
  reaped(status, w == pid_ ? x : nullptr);
}

void SandboxedService::reaped(int status, Exchange* x) {
  ::kill(-pid_, SIGKILL);  // whatever is left of its group
  if (x) {
    if (WIFEXITED(status)) x->process.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) x->process.signal = WTERMSIG(status);
  }
  for (int* fd : {&requests_, &replies_, &out_, &err_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  pid_ = -1;
}

SandboxedService::Exchange SandboxedService::exchange(const std::string& request, double timeout_s) {
  Exchange x;
  if (pid_ <= 0) {
    x.process = start_;
    x.process.started = false;
    if (x.process.start_error.empty()) x.process.start_error = "its session has ended";
    return x;
  }
  x.process.started = true;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string pending = posted_ + std::to_string(request.size()) + "\n" + request;
  posted_.clear();
  size_t sent = 0;
  BoundedOutput err(command_.limits.max_output_bytes);
  auto next_tree_check = start;
  char buf[65536];
  int status = 0;
  bool exited = false;
  // Reads what is there on the reply channel; false when it broke the protocol.
  auto read_replies = [&] {
    for (ssize_t r; (r = ::read(replies_, buf, sizeof buf)) > 0;) reader_.feed(buf, static_cast<size_t>(r));
    if (!x.reply) x.reply = reader_.next();
    // One request, one reply: anything more (a second frame, bytes after it) is not the judge's.
    if (reader_.malformed() || (x.reply && !reader_.empty())) {
      x.reply.reset();
      x.protocol_error = "its reply channel carried something other than one reply frame";
      return false;
    }
    return true;
  };
  auto read_text = [&](int fd) {
    for (ssize_t r; fd >= 0 && (r = ::read(fd, buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(r));
  };
  while (!x.reply) {
    const auto now = Clock::now();
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited = true;
      read_replies();  // a last reply written just before it exited still counts
      break;
    }
    if (now >= deadline) {
      x.process.timed_out = true;
      break;
    }
    if (now >= next_tree_check) {
      const ProcessTreeUsage usage = process_tree_usage(pid_);
      x.process.peak_rss_mb = std::max(x.process.peak_rss_mb, usage.rss_mb);
      x.process.peak_processes = std::max(x.process.peak_processes, usage.processes);
      if (command_.limits.max_rss_mb > 0 && usage.rss_mb > command_.limits.max_rss_mb) {
        x.process.killed_for_memory = true;
        break;
      }
      if (usage.processes > command_.limits.max_processes + 2) {
        x.process.killed_for_processes = true;
        break;
      }
      next_tree_check = now + std::chrono::milliseconds(50);
    }
    pollfd fds[4] = {{replies_, POLLIN, 0}, {err_, POLLIN, 0}, {out_, POLLIN, 0}, {requests_, POLLOUT, 0}};
    const nfds_t n = sent < pending.size() ? 4 : 3;
    if (::poll(fds, n, 20) <= 0) continue;
    if (n == 4 && (fds[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(requests_, pending.data() + sent, pending.size() - sent);
      if (w > 0) sent += static_cast<size_t>(w);
      else if (w < 0 && errno != EAGAIN && errno != EINTR) pending.clear(), sent = 0;  // it is gone: waitpid says how
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) read_text(err_);
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) read_text(out_);
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) && !read_replies()) break;
  }
  // What it printed before the reply belongs to this exchange (a crash line comes first).
  read_text(err_);
  read_text(out_);
  if (exited) {  // already reaped: the session is over, with or without a last reply
    reaped(status, x.reply ? nullptr : &x);
  } else if (!x.reply) {
    end(SIGKILL, &x);
  }
  x.process.wall_s = seconds_between(start, Clock::now());
  x.process.err = redact(err.text(x.process.err_truncated));
  return x;
}

}  // namespace kb::profiler
