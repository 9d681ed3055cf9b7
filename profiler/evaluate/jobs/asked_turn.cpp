#include "profiler/evaluate/jobs/asked_turn.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace kb::profiler {

AskedTurn::AskedTurn(GpuTurns& turns, GpuUse use) : turns_(turns), use_(use) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(std::string("socketpair for the GPU's turn: ") + std::strerror(errno));
  own_fd_ = sv[0];
  judge_fd_ = sv[1];
  waiter_ = std::thread([this] { serve(); });
}

AskedTurn::~AskedTurn() { finish(); }

void AskedTurn::serve() {
  // Polled in short steps: the job can end (killed, timed out) without the judge ever asking, and
  // this process keeps the judge's end open until finish(), so the judge's exit is no end of file.
  while (!stop_.load()) {
    pollfd p{own_fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, 50);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    char ask = 0;
    const ssize_t r = ::recv(own_fd_, &ask, 1, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r != 1 || ask != 'T') return;  // the judge ended, or wrote what no judge writes: no turn
    asked_ = true;
    turn_.emplace(turns_.take(use_));
    waited_s_ = turn_->waited_s();
    const char answer = 'T';
    ::send(own_fd_, &answer, 1, MSG_NOSIGNAL);  // a judge gone by now reads nothing: no harm
    return;
  }
}

double AskedTurn::finish() {
  stop_.store(true);
  if (waiter_.joinable()) waiter_.join();
  turn_.reset();
  for (int* fd : {&own_fd_, &judge_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  return waited_s_;
}

}  // namespace kb::profiler
