#include "profiler/evaluate/jobs/gpu_turns.h"

#include <chrono>
#include <map>
#include <memory>

namespace kb::profiler {

GpuUse gpu_use_of(const HarnessJob& job) {
  if (job.under_sanitizer) return GpuUse::unmeasured;  // the tools slow every kernel 10-100x: nothing is timed
  return job.mode == JobMode::verify ? GpuUse::unmeasured : GpuUse::measured;
}

GpuTurns::Turn::Turn(Turn&& other) noexcept : turns_(other.turns_), use_(other.use_), waited_s_(other.waited_s_) {
  other.turns_ = nullptr;
}

GpuTurns::Turn::~Turn() {
  if (turns_) turns_->give_back(use_);
}

GpuTurns::Turn GpuTurns::take(GpuUse use) {
  const auto asked = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  // Its turn comes when every earlier caller has been let in and what runs now can run beside it.
  changed_.wait(lock, [&] {
    if (ticket != serving_ || measured_running_) return false;
    return use == GpuUse::unmeasured || unmeasured_running_ == 0;
  });
  ++serving_;
  if (use == GpuUse::measured) measured_running_ = true;
  else ++unmeasured_running_;
  lock.unlock();
  changed_.notify_all();  // the next ticket may run beside this one (both unmeasured)
  return {this, use, std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count()};
}

uint64_t GpuTurns::waiting() {
  std::lock_guard lock(mutex_);
  return next_ticket_ - serving_;
}

void GpuTurns::give_back(GpuUse use) {
  {
    std::lock_guard lock(mutex_);
    if (use == GpuUse::measured) measured_running_ = false;
    else --unmeasured_running_;
  }
  changed_.notify_all();
}

GpuTurns& gpu_turns(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<GpuTurns>> turns;  // never erased: references stay valid
  std::lock_guard lock(mutex);
  auto& t = turns[device];
  if (!t) t = std::make_unique<GpuTurns>();
  return *t;
}

}  // namespace kb::profiler
