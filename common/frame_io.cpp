#include "common/frame_io.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace kb {
namespace {

// A header is at most 20 digits and a newline; anything else is not a frame.
constexpr size_t kMaxHeader = 21;

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The payload size of a header "<digits>" (without its newline), or nothing when malformed.
std::optional<size_t> parse_header(std::string_view digits, size_t max) {
  if (digits.empty() || digits.size() >= kMaxHeader) return std::nullopt;
  size_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n > max) return std::nullopt;
  return n;
}

}  // namespace

bool write_frame(int fd, std::string_view payload) {
  const std::string header = std::to_string(payload.size()) + "\n";
  return write_all(fd, header.data(), header.size()) && write_all(fd, payload.data(), payload.size());
}

bool read_frame(int fd, std::string& payload, size_t max) {
  std::string digits;
  for (;;) {
    char c = 0;
    const ssize_t r = ::read(fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    if (c == '\n') break;
    digits.push_back(c);
    if (digits.size() >= kMaxHeader) return false;
  }
  const auto n = parse_header(digits, max);
  if (!n) return false;
  payload.assign(*n, '\0');
  size_t got = 0;
  while (got < *n) {
    const ssize_t r = ::read(fd, payload.data() + got, *n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

std::optional<std::string> FrameReader::next() {
  if (malformed_) return std::nullopt;
  const size_t newline = buffer_.find('\n');
  if (newline == std::string::npos) {
    if (buffer_.size() >= kMaxHeader) malformed_ = true;
    return std::nullopt;
  }
  const auto n = parse_header(std::string_view(buffer_).substr(0, newline), max_);
  if (!n) {
    malformed_ = true;
    return std::nullopt;
  }
  if (buffer_.size() - newline - 1 < *n) return std::nullopt;
  std::string payload = buffer_.substr(newline + 1, *n);
  buffer_.erase(0, newline + 1 + *n);
  return payload;
}

}  // namespace kb
