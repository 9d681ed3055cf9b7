// Publishing one kernel's winner while the next kernel is searched. A search's result is handed
// to one thread that publishes the results in the order they came (re-verification, the
// project's build, the commit and the PR; bot/publish/publish.h), so that the re-verification's
// compiles and compute-sanitizer runs, the project's build and the forge's requests overlap the
// next search instead of holding it up. The GPU work of both interleaves by turns
// (profiler/evaluate/jobs/gpu_turns.h): no timing or counter shares the GPU with anything.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace kb::bot {

class PublishQueue {
 public:
  PublishQueue() = default;
  // Finishes what was posted (each is a verified winner's PR), then ends the thread; an exception
  // left for drain() is dropped here.
  ~PublishQueue();
  PublishQueue(const PublishQueue&) = delete;
  PublishQueue& operator=(const PublishQueue&) = delete;

  // Runs `task` on the queue's thread after every task posted before it; returns at once.
  void post(std::function<void()> task);
  // Waits until every posted task has run; rethrows the first exception a task let out (the
  // others still ran).
  void drain();

 private:
  void work(const std::stop_token& stop);

  std::mutex mutex_;
  std::condition_variable_any changed_;
  std::deque<std::function<void()>> tasks_;
  bool running_ = false;  // a task taken from tasks_ has not ended yet
  std::exception_ptr first_failure_;
  std::jthread thread_;  // started by the first post(); last member: joined before the rest goes
};

}  // namespace kb::bot
