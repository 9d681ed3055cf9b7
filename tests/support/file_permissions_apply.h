// Makes file permissions apply to a test that runs as root, as CI's containers do: root's
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH read a file of mode 000, so a test of "Permission denied"
// would otherwise see a successful read (or skip, and prove nothing).
//
// In this process: FilePermissionsApply takes both capabilities out of the calling thread's
// effective set for its scope (capabilities are per thread; the permitted set keeps them, so they
// are put back after). For a program it starts: permission_checked_prefix() is a command prefix
// that drops them from the bounding and inheritable sets with setpriv (util-linux, in every Debian
// and Ubuntu base), since root regains its effective set on exec. A non-root user needs neither.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kb::testing {

class FilePermissionsApply {
 public:
  FilePermissionsApply() {
    if (::geteuid() != 0) return;
    if (::syscall(SYS_capget, &header_, saved_) != 0)
      throw std::runtime_error(std::string("capget: ") + std::strerror(errno));
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    // Both capabilities are below 32: the first word holds them.
    lowered[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
    if (::syscall(SYS_capset, &header_, lowered) != 0)
      throw std::runtime_error(std::string("capset: ") + std::strerror(errno));
    lowered_ = true;
  }
  ~FilePermissionsApply() {
    if (lowered_) ::syscall(SYS_capset, &header_, saved_);
  }
  FilePermissionsApply(const FilePermissionsApply&) = delete;
  FilePermissionsApply& operator=(const FilePermissionsApply&) = delete;

 private:
  __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct saved_[2] = {};
  bool lowered_ = false;
};

// Goes before a command as a shell takes it ("" for a non-root user).
inline std::string permission_checked_prefix() {
  return ::geteuid() == 0 ? "setpriv --bounding-set=-dac_override,-dac_read_search "
                            "--inh-caps=-dac_override,-dac_read_search"
                          : "";
}

}  // namespace kb::testing
