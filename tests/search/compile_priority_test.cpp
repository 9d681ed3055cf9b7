#include "search/engine/compile_priority.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace kb::search {
namespace {

int nice_of_this_thread() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); }

TEST(CompilePriority, LowersOnlyTheCallingThreadAndWhatItStarts) {
  const int main_before = nice_of_this_thread();
  int lowered = 0, after_higher_ask = 0, child = -1;
  std::thread worker([&] {
    lowered = lower_this_thread_priority(main_before + 5 > 19 ? 19 : main_before + 5);
    // Asking for a higher priority than the thread has is not a way to raise it.
    after_higher_ask = lower_this_thread_priority(main_before);
    // A process the thread starts (nvcc, under the sandbox) inherits the thread's value.
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(nice_of_this_thread() & 0xff);
    int status = 0;
    ::waitpid(pid, &status, 0);
    child = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  });
  worker.join();
  const int expected = main_before + 5 > 19 ? 19 : main_before + 5;
  EXPECT_EQ(lowered, expected);
  EXPECT_EQ(after_higher_ask, expected);
  EXPECT_EQ(child, expected & 0xff);
  EXPECT_EQ(nice_of_this_thread(), main_before) << "the other threads keep their priority";
}

}  // namespace
}  // namespace kb::search
