// Length-prefixed text messages over a pipe: "<decimal byte count>\n" then exactly that many
// bytes. kernelbot and a long-lived judge (kernelbot-harness --session) exchange jobs and results
// this way; the decimal header keeps a fake judge in a test writable as a shell script.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kb {

// Writes one frame, all of it (retrying partial writes and EINTR). False when the reader is gone.
bool write_frame(int fd, std::string_view payload);

// Reads one frame, blocking. False at end of file, on a malformed header or a payload over `max`.
bool read_frame(int fd, std::string& payload, size_t max);

// Frames from bytes as they arrive (a poll loop's reads), for the side that cannot block.
class FrameReader {
 public:
  explicit FrameReader(size_t max) : max_(max) {}
  void feed(const char* data, size_t n) { buffer_.append(data, n); }
  // The next complete frame, if one has arrived; sets malformed() on a bad header or size.
  std::optional<std::string> next();
  bool malformed() const { return malformed_; }
  // No bytes are waiting (a frame's beginning, or one not taken yet).
  bool empty() const { return buffer_.empty(); }

 private:
  size_t max_;
  std::string buffer_;
  bool malformed_ = false;
};

}  // namespace kb
