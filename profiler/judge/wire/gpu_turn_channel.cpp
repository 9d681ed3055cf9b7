#include "profiler/judge/wire/gpu_turn_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace kb::judge {

GpuTurnChannel::GpuTurnChannel(int fd) : fd_(fd) {
  if (fd_ >= 0) ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
}

GpuTurnChannel::~GpuTurnChannel() {
  if (fd_ >= 0) ::close(fd_);
}

void GpuTurnChannel::wait_for_turn(double timeout_s) {
  if (granted_) return;
  // Whatever runs the judge (compute-sanitizer among them) must have passed the socket on: a
  // judge that could not ask would run its GPU work without a turn, inside another job's timing.
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0 || !S_ISSOCK(st.st_mode))
    throw Error("descriptor " + std::to_string(fd_) + " is not the socket kernelbot passed for the GPU's turn");
  const char ask = 'T';
  ssize_t w = 0;
  do w = ::send(fd_, &ask, 1, MSG_NOSIGNAL);
  while (w < 0 && errno == EINTR);
  if (w != 1) throw Error(std::string("could not ask for the GPU's turn: ") + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) throw Error("no turn on the GPU within " + std::to_string(static_cast<int>(timeout_s)) + " s");
    pollfd p{fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) throw Error(std::string("waiting for the GPU's turn: ") + std::strerror(errno));
    if (rc == 0) continue;
    char answer = 0;
    const ssize_t r = ::recv(fd_, &answer, 1, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r != 1 || answer != 'T') throw Error("kernelbot closed the GPU turn's socket without giving the turn");
    granted_ = true;
    return;
  }
}

}  // namespace kb::judge
