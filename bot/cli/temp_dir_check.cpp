#include "bot/cli/temp_dir_check.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace kb::bot {

void require_writable_temp_dir() {
  const char* set = std::getenv("TMPDIR");
  const std::string dir = set && *set ? set : "/tmp";
  std::string probe = dir + "/kernelbot-tmp-check-XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd >= 0) {
    close(fd);
    unlink(probe.c_str());
    return;
  }
  const std::string why = std::strerror(errno);
  throw Error((set && *set ? "TMPDIR=" + dir : std::string("/tmp (TMPDIR is not set)")) +
              " is not a directory kernelbot can write to (" + why +
              "): nvcc writes its intermediate files there, so no kernel could compile; set TMPDIR to a writable "
              "directory");
}

}  // namespace kb::bot
