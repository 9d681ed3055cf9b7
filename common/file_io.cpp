#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace kb {

namespace {

// What a non-regular file is, in the words a user knows it by.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// "<path>" or "<path> (a symlink to <target>)", so the message names what was really opened.
std::string shown(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path.string();
  const auto target = std::filesystem::read_symlink(path, ec);
  return path.string() + " (a symlink to " + (ec ? std::string("?") : target.string()) + ")";
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& reason) {
  throw Error("cannot read " + shown(path) + ": " + reason);
}

[[noreturn]] void fail_not_regular(const std::filesystem::path& path, mode_t mode) {
  fail(path, "it is " + kind_of(mode) + ", not a regular file");
}

// Closes the descriptor on every path out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string format_byte_limit(std::uintmax_t bytes) {
  if (bytes >= (std::uintmax_t{1} << 30) && bytes % (std::uintmax_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uintmax_t{1} << 20) && bytes % (std::uintmax_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

std::optional<std::string> try_read_text_file(const std::filesystem::path& path, std::uintmax_t limit_bytes) {
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
  Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) return std::nullopt;
    struct stat st {};
    if (error == ENXIO && ::stat(path.c_str(), &st) == 0) fail_not_regular(path, st.st_mode);  // a socket
    fail(path, std::strerror(error));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail_not_regular(path, st.st_mode);
  const std::string limit_text = "it is larger than the " + format_byte_limit(limit_bytes) + " limit for this file";
  if (static_cast<std::uintmax_t>(st.st_size) > limit_bytes) fail(path, limit_text);
  // Read to the end rather than st_size bytes: /proc files say 0, and a growing file may pass it.
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::strerror(errno));
    }
    if (text.size() + static_cast<std::size_t>(n) > limit_bytes) fail(path, limit_text);
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::string read_text_file(const std::filesystem::path& path, std::uintmax_t limit_bytes) {
  auto text = try_read_text_file(path, limit_bytes);
  if (!text) fail(path, std::strerror(ENOENT));
  return *text;
}

std::optional<std::string> read_text_file_if_readable(const std::filesystem::path& path, std::uintmax_t limit_bytes) {
  try {
    return try_read_text_file(path, limit_bytes);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace kb
