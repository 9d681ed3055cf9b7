#include "bot/job/publish_queue.h"

#include <utility>

namespace kb::bot {

PublishQueue::~PublishQueue() {
  try {
    drain();
  } catch (...) {
    // Already reported by the task; the caller that would have rethrown it is unwinding.
  }
  thread_.request_stop();
  changed_.notify_all();
}

void PublishQueue::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    if (!thread_.joinable()) thread_ = std::jthread([this](const std::stop_token& stop) { work(stop); });
  }
  changed_.notify_all();
}

void PublishQueue::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return tasks_.empty() && !running_; });
  if (first_failure_) std::rethrow_exception(std::exchange(first_failure_, nullptr));
}

void PublishQueue::work(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, stop, [&] { return !tasks_.empty(); });
    if (tasks_.empty()) return;  // stop requested, nothing left
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    running_ = true;
    lock.unlock();
    std::exception_ptr failure;
    try {
      task();
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    running_ = false;
    if (failure && !first_failure_) first_failure_ = failure;
    changed_.notify_all();
  }
}

}  // namespace kb::bot
