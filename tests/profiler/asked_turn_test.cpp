// kernelbot's side of a GPU turn the judge asks for (asked_turn.h) against the judge's own side
// (gpu_turn_channel.h), over the real socket pair, as kernelbot-harness --gpu-turn-fd uses it.
#include "profiler/evaluate/jobs/asked_turn.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "core/errors.h"
#include "profiler/judge/wire/gpu_turn_channel.h"

namespace kb::profiler {
namespace {

using namespace std::chrono_literals;
using judge::GpuTurnChannel;

// The judge's own copy of the descriptor, as the child process gets it.
int judge_copy(const AskedTurn& asked) { return ::dup(asked.judge_fd()); }

// Whether a measured job (a timing) gets its turn within `within`: it is released at once.
bool timing_gets_in(GpuTurns& turns, std::chrono::milliseconds within) {
  auto taken = std::async(std::launch::async, [&] { turns.take(GpuUse::measured); });
  return taken.wait_for(within) == std::future_status::ready;
}

TEST(AskedTurn, NoTurnIsHeldBeforeTheJudgeAsks) {
  GpuTurns turns;
  AskedTurn asked(turns, GpuUse::unmeasured);
  GpuTurnChannel judge(judge_copy(asked));
  EXPECT_TRUE(timing_gets_in(turns, 2s)) << "the judge's start holds no turn: a timing runs meanwhile";
  EXPECT_EQ(asked.finish(), 0);
  EXPECT_FALSE(asked.asked());
}

TEST(AskedTurn, TheJudgesTurnKeepsATimingOutUntilTheJobEnds) {
  GpuTurns turns;
  AskedTurn asked(turns, GpuUse::unmeasured);
  GpuTurnChannel judge(judge_copy(asked));
  judge.wait_for_turn(5);
  judge.wait_for_turn(5);  // asked once: a second call returns at once
  auto timing = std::async(std::launch::async, [&] { turns.take(GpuUse::measured); });
  EXPECT_EQ(timing.wait_for(200ms), std::future_status::timeout) << "a timing ran inside the judge's turn";
  asked.finish();
  EXPECT_EQ(timing.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(asked.asked());
}

TEST(AskedTurn, TheJudgeWaitsForATimingThatHoldsTheGpu) {
  GpuTurns turns;
  std::optional<GpuTurns::Turn> timing(turns.take(GpuUse::measured));
  AskedTurn asked(turns, GpuUse::unmeasured);
  std::atomic<bool> granted{false};
  std::thread judge_thread([&, fd = judge_copy(asked)] {
    GpuTurnChannel judge(fd);
    judge.wait_for_turn(10);
    granted = true;
  });
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(granted.load()) << "the judge's GPU work began inside a timing";
  timing.reset();
  judge_thread.join();
  EXPECT_TRUE(granted.load());
  EXPECT_GE(asked.finish(), 0.25) << "the wait is counted";
}

TEST(AskedTurn, AJudgeGivenNoSocketFailsInsteadOfRunningWithoutATurn) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);
  GpuTurnChannel on_a_pipe(p[1]);
  EXPECT_THROW(on_a_pipe.wait_for_turn(1), Error);
  GpuTurnChannel on_nothing(-1);
  EXPECT_THROW(on_nothing.wait_for_turn(1), Error);
  GpuTurnChannel on_a_closed_descriptor(1000);
  EXPECT_THROW(on_a_closed_descriptor.wait_for_turn(1), Error);
}

TEST(AskedTurn, TheJudgeGivesUpWhenKernelbotsEndIsGoneOrSilent) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  {
    GpuTurnChannel judge(sv[1]);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(judge.wait_for_turn(0.3), Error) << "nobody answers";
    EXPECT_GE(std::chrono::steady_clock::now() - start, 250ms);
  }
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv + 0), 0);
  ::close(sv[0]);
  GpuTurnChannel judge(sv[1]);
  try {
    judge.wait_for_turn(5);
    ADD_FAILURE() << "a turn from a closed socket";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not ask"), std::string::npos) << e.what();
  }
}

TEST(AskedTurn, AJobThatEndsWhileWaitingForItsTurnGivesItBack) {
  GpuTurns turns;
  std::optional<GpuTurns::Turn> timing(turns.take(GpuUse::measured));
  auto asked = std::make_unique<AskedTurn>(turns, GpuUse::unmeasured);
  {
    // The judge asks, then dies (killed by its time limit) before the answer.
    GpuTurnChannel judge(judge_copy(*asked));
    EXPECT_THROW(judge.wait_for_turn(0.2), Error);
  }
  auto finished = std::async(std::launch::async, [&] { return asked->finish(); });
  timing.reset();
  EXPECT_EQ(finished.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(timing_gets_in(turns, 2s)) << "the dead judge's turn was given back";
}

}  // namespace
}  // namespace kb::profiler
