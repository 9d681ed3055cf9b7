#include "common/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace kb {

namespace {

[[noreturn]] void write_failed(const std::filesystem::path& path, const std::string& reason) {
  throw Error("cannot write " + path.string() + ": " + reason);
}

// Writes every byte and flushes it to disk; the errno of the first failure, 0 when all went well.
int write_all_and_sync(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(fd) != 0) return errno;
  return 0;
}

// Writes into a freshly created `fd` and closes it; on failure removes `path` and throws naming
// `shown` (the file the user asked for, not the temporary one).
void fill_new_file(int fd, const std::filesystem::path& path, std::string_view text,
                   const std::filesystem::path& shown) {
  int error = write_all_and_sync(fd, text);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(path.c_str());
    write_failed(shown, std::strerror(error));
  }
}

// A name beside `target` that no other writer (thread or process) picks at the same moment.
std::filesystem::path temporary_beside(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return temp;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& target, std::string_view text) {
  mode_t mode = 0666;  // less the umask, which open applies
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const auto to = std::filesystem::read_symlink(target, ec);
      write_failed(target, "it is a symlink (to " + (ec ? std::string("?") : to.string()) +
                               "); kernelbot does not write through symlinks: replace the link with a file or name the "
                               "file it points to");
    }
    if (!S_ISREG(st.st_mode)) write_failed(target, "it exists and is not a regular file");
    mode = st.st_mode & 07777;
  }
  const std::filesystem::path temp = temporary_beside(target);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) write_failed(target, std::strerror(errno));
  // An existing file's mode was read before the umask could narrow it; set it exactly.
  if (st.st_mode != 0) (void)::fchmod(fd, mode);
  fill_new_file(fd, temp, text, target);
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    write_failed(target, std::strerror(error));
  }
  // The rename itself reaches the disk with the directory; a failure here loses nothing written.
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  if (const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
}

bool write_new_file(const std::filesystem::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    write_failed(path, std::strerror(errno));
  }
  fill_new_file(fd, path, text, path);
  return true;
}

}  // namespace kb
