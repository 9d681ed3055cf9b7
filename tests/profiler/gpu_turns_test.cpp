#include "profiler/evaluate/jobs/gpu_turns.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kb::profiler {
namespace {

using namespace std::chrono_literals;

// Waits (bounded) until `turns` has `n` callers waiting: the order they asked in is then known.
void until_waiting(GpuTurns& turns, uint64_t n) {
  for (int i = 0; i < 2000 && turns.waiting() != n; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(turns.waiting(), n);
}

// The order in which turns were entered, by name.
struct Entries {
  std::mutex mutex;
  std::vector<std::string> names;
  void add(const std::string& name) {
    std::lock_guard lock(mutex);
    names.push_back(name);
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return names;
  }
};

TEST(GpuTurns, TimingAndCountersAreMeasuredVerificationAndTheSanitizerAreNot) {
  HarnessJob job;
  for (const JobMode mode : {JobMode::verify_and_time, JobMode::time_baseline, JobMode::metrics}) {
    job.mode = mode;
    EXPECT_EQ(gpu_use_of(job), GpuUse::measured) << to_string(mode);
  }
  job.mode = JobMode::verify;
  EXPECT_EQ(gpu_use_of(job), GpuUse::unmeasured);
  job.under_sanitizer = true;
  for (const JobMode mode : {JobMode::verify_and_time, JobMode::verify}) {
    job.mode = mode;
    EXPECT_EQ(gpu_use_of(job), GpuUse::unmeasured) << to_string(mode) << " under compute-sanitizer";
  }
}

TEST(GpuTurns, UnmeasuredJobsShareTheGpu) {
  GpuTurns turns;
  auto first = turns.take(GpuUse::unmeasured);
  std::atomic<bool> second_in{false};
  std::thread other([&] {
    auto second = turns.take(GpuUse::unmeasured);
    second_in = true;
  });
  other.join();  // would never end if the second had to wait for the first
  EXPECT_TRUE(second_in);
}

TEST(GpuTurns, AMeasuredJobWaitsForTheJobsRunningAndRunsAlone) {
  GpuTurns turns;
  std::optional<GpuTurns::Turn> sanitizer(turns.take(GpuUse::unmeasured));
  std::atomic<bool> timing_in{false};
  std::atomic<bool> overlapped{false};
  std::atomic<bool> sanitizer_done{false};
  double waited = 0;
  std::thread timing([&] {
    auto turn = turns.take(GpuUse::measured);
    timing_in = true;
    overlapped = !sanitizer_done;
    waited = turn.waited_s();
  });
  until_waiting(turns, 1);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timing_in) << "a timing ran while a compute-sanitizer run had the GPU";
  sanitizer_done = true;
  sanitizer.reset();
  timing.join();
  EXPECT_TRUE(timing_in);
  EXPECT_FALSE(overlapped);
  EXPECT_GE(waited, 0.04);

  // Two measured jobs: one after the other.
  std::optional<GpuTurns::Turn> counters(turns.take(GpuUse::measured));
  std::atomic<bool> second_in{false};
  std::thread second([&] {
    auto turn = turns.take(GpuUse::measured);
    second_in = true;
  });
  until_waiting(turns, 1);
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(second_in);
  counters.reset();
  second.join();
  EXPECT_TRUE(second_in);
}

TEST(GpuTurns, TurnsAreGrantedInTheOrderAskedSoUnmeasuredWorkCannotStarveATiming) {
  GpuTurns turns;
  Entries entries;
  std::optional<GpuTurns::Turn> running(turns.take(GpuUse::unmeasured));
  std::atomic<bool> timing_done{false};
  std::atomic<bool> late_while_timing{false};
  std::thread timing([&] {
    auto turn = turns.take(GpuUse::measured);
    entries.add("timing");
    std::this_thread::sleep_for(30ms);
    timing_done = true;
  });
  until_waiting(turns, 1);
  // Could run beside the sanitizer that holds the GPU, but asked after the timing: it waits.
  std::thread late([&] {
    auto turn = turns.take(GpuUse::unmeasured);
    late_while_timing = !timing_done;
    entries.add("late sanitizer run");
  });
  until_waiting(turns, 2);
  std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(entries.get().empty());
  running.reset();
  timing.join();
  late.join();
  EXPECT_EQ(entries.get(), (std::vector<std::string>{"timing", "late sanitizer run"}));
  EXPECT_FALSE(late_while_timing);
  EXPECT_EQ(turns.waiting(), 0u);
}

TEST(GpuTurns, EveryEvaluatorOfAGpuSharesItsTurns) {
  EXPECT_EQ(&gpu_turns(3), &gpu_turns(3));
  EXPECT_NE(&gpu_turns(3), &gpu_turns(4));
}

}  // namespace
}  // namespace kb::profiler
