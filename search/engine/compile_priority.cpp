#include "search/engine/compile_priority.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace kb::search {

int lower_this_thread_priority(int nice) {
  // On Linux, PRIO_PROCESS with a thread id is that thread's nice value alone (setpriority(2), BUGS).
  const auto tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno != 0) return 0;
  if (now >= nice) return now;
  if (::setpriority(PRIO_PROCESS, tid, nice) != 0) return now;
  return nice;
}

}  // namespace kb::search
