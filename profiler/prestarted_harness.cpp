#include "profiler/prestarted_harness.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

bool send_line(int fd, const std::string& line) {
  const std::string text = line + "\n";
  for (size_t at = 0; at < text.size();) {
    const ssize_t w = ::send(fd, text.data() + at, text.size() - at, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    at += static_cast<size_t>(w);
  }
  return true;
}

bool inside(const std::string& file, const fs::path& root) {
  if (file.empty()) return true;  // no such library in this job
  const fs::path f = fs::absolute(file).lexically_normal();
  const fs::path r = fs::absolute(root).lexically_normal();
  const auto mismatch = std::mismatch(r.begin(), r.end(), f.begin(), f.end());
  return mismatch.first == r.end();
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

PrestartedHarness::PrestartedHarness(const std::string& harness, const fs::path& dir, const std::string& kernel,
                                     int device, const fs::path& library_root, const HarnessLimits& limits,
                                     double max_wait_s)
    : dir_(dir),
      kernel_(kernel),
      device_(device),
      library_root_(library_root),
      timeout_s_(limits.timeout_s),
      max_wait_s_(max_wait_s),
      key_(harness_seal_key()),
      started_(std::chrono::steady_clock::now()) {
  fs::create_directories(dir_);
  fs::remove(dir_ / "job.json");
  fs::remove(dir_ / "result.json");
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stdin_) != 0)
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  // The key is in the socket before the judge starts: only the judge's first read sees it.
  if (!send_line(stdin_[0], key_)) {
    ::close(stdin_[0]);
    ::close(stdin_[1]);
    throw std::runtime_error("cannot hand the key to a judge started ahead");
  }
  HarnessLimits view_limits = limits;
  view_limits.library_dirs.push_back(library_root_);
  SandboxCommand cmd = harness_command(harness, dir_, view_limits, {}, {});
  for (const std::string a : {"--await-job", "--device"}) cmd.argv.push_back(a);
  cmd.argv.push_back(std::to_string(device_));
  cmd.stdin_fd = stdin_[1];
  cmd.cancel = &cancel_;
  cmd.limits.wall_time_s = limits.timeout_s + max_wait_s;
  process_ = std::async(std::launch::async, [cmd] { return run_sandboxed(cmd); });
  spdlog::debug("started a judge ahead for '{}' in {}", kernel_, dir_.string());
}

PrestartedHarness::~PrestartedHarness() {
  if (process_.valid()) {
    ::shutdown(stdin_[0], SHUT_RDWR);  // end of file: a judge that took no job ends by itself...
    cancel_ = true;                    // ...and is killed, in case it is still starting up
    process_.wait();
  }
  if (stdin_[0] >= 0) ::close(stdin_[0]);
  if (stdin_[1] >= 0) ::close(stdin_[1]);
  if (!used_) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

bool PrestartedHarness::still_waiting() const {
  if (!process_.valid() || process_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return false;
  // Past this, the sandbox's wall-time limit would cut into the job's own timeout.
  return seconds_between(started_, std::chrono::steady_clock::now()) < max_wait_s_;
}

bool PrestartedHarness::can_run(const HarnessJob& job, double timeout_s) const {
  return !used_ && job.kernel == kernel_ && job.device == device_ && timeout_s == timeout_s_ &&
         inside(job.baseline_library, library_root_) && inside(job.candidate_library, library_root_) &&
         still_waiting();
}

std::optional<HarnessRun> PrestartedHarness::run(const HarnessJob& job) {
  if (used_ || !still_waiting()) return std::nullopt;
  used_ = true;
  write_harness_job(job, dir_);
  const auto go = std::chrono::steady_clock::now();
  if (!send_line(stdin_[0], "go")) {
    SandboxResult gone = process_.get();
    spdlog::debug("the judge started ahead in {} was gone: {}", dir_.string(), gone.describe());
    used_ = false;  // nothing ran: its directory goes with it
    return std::nullopt;
  }
  SandboxResult ended = process_.get();
  // Its clock counts from the job, as a judge started for it would.
  ended.wall_s = std::max(0.0, ended.wall_s - seconds_between(started_, go));
  return read_harness_result(std::move(ended), dir_, key_);
}

}  // namespace kb::profiler
