#include "profiler/judge/tracing/call_order.h"

#include <gtest/gtest.h>

namespace kb::judge {
namespace {

constexpr uint32_t kLegacy = 7, kGiven = 13, kHidden = 21;

ActivityRecord kernel(const std::string& name, uint32_t stream, uint64_t start_us, uint64_t end_us) {
  ActivityRecord r;
  r.name = name;
  r.stream = stream;
  r.start = start_us * 1000;
  r.end = end_us * 1000;
  return r;
}

// The call's brackets: the gate held from 0 to 300 us, the marker at 310 us.
std::vector<ActivityRecord> bracketed(std::vector<ActivityRecord> call) {
  call.push_back(kernel("kb::judge::call_gate_kernel(int volatile*, int volatile*, unsigned long)", kLegacy, 0, 300));
  call.push_back(kernel("kb::judge::call_marker_kernel()", kLegacy, 310, 311));
  return call;
}

CallOrderVerdict judge(const std::vector<ActivityRecord>& records) {
  return judge_call_order(records, kLegacy, "call_gate_kernel", "call_marker_kernel");
}

TEST(CallOrder, WorkOnTheCallersStreamKeepsTheOrder) {
  // Queued behind the gate on the given (blocking) stream and on the default stream: it starts
  // when the gate opens and is done when the marker starts.
  const auto v = judge(bracketed({kernel("saxpy", kGiven, 301, 305), kernel("memset", kLegacy, 305, 309)}));
  EXPECT_TRUE(v.judged);
  EXPECT_FALSE(v.finding.has_value());
}

TEST(CallOrder, AShortKernelOnAHiddenStreamIsCaughtStartingWhileTheGateHeld) {
  // 2.5 us of hidden work, done long before the caller's stream completes: the host clock's 20 us
  // slack let this pass (an H200, 2026-11-26); the gate does not.
  const auto v = judge(bracketed({kernel("saxpy_hidden", kHidden, 12, 15)}));
  ASSERT_TRUE(v.judged);
  ASSERT_TRUE(v.finding.has_value());
  EXPECT_EQ(v.finding->kind, CallOrderFinding::Kind::started_early);
  EXPECT_EQ(v.finding->record.name, "saxpy_hidden");
  EXPECT_DOUBLE_EQ(v.finding->by_us, 288);
}

TEST(CallOrder, WorkThatOutlastsTheCallersStreamIsCaughtEndingAfterTheMarker) {
  // Forked after the gate (it waited for the caller's earlier work) but never joined back.
  const auto v = judge(bracketed({kernel("tail", kHidden, 302, 318), kernel("early", kHidden, 100, 101)}));
  ASSERT_TRUE(v.finding.has_value());
  EXPECT_EQ(v.finding->kind, CallOrderFinding::Kind::ended_late);  // the worse escape is reported
  EXPECT_EQ(v.finding->record.name, "tail");
  EXPECT_DOUBLE_EQ(v.finding->by_us, 8);
}

TEST(CallOrder, ForkedAndJoinedSideStreamWorkKeepsTheOrder) {
  // An event fork after the gate, a join before the marker: a launcher's honest side stream.
  const auto v = judge(bracketed({kernel("main", kGiven, 301, 306), kernel("side", kHidden, 301, 308)}));
  EXPECT_FALSE(v.finding.has_value());
}

TEST(CallOrder, TimestampsWithinAMicrosecondAreNotToldApart) {
  const auto v = judge(bracketed({kernel("next", kGiven, 300, 310)}));
  EXPECT_FALSE(v.finding.has_value());
}

TEST(CallOrder, ForgedBracketsOnlyMakeMoreWorkLookOutOfOrder) {
  // The call queues its own "marker" early and its own "gate" that ends early: the judge keeps
  // the marker that started first and the gate that ended last, so the hidden kernel is still
  // caught (and the forged marker, which ended late, too).
  auto records = bracketed({kernel("saxpy_hidden", kHidden, 12, 15)});
  records.push_back(kernel("call_gate_kernel", kLegacy, 0, 5));
  records.push_back(kernel("call_marker_kernel", kLegacy, 320, 321));
  const auto v = judge(records);
  ASSERT_TRUE(v.finding.has_value());
  EXPECT_EQ(v.finding->kind, CallOrderFinding::Kind::ended_late);
  EXPECT_EQ(v.finding->record.name, "call_marker_kernel");

  // A forged gate alone: the real one still decides, and the forgery itself started early.
  const auto forged_gate = judge(bracketed({kernel("call_gate_kernel", kLegacy, 0, 5)}));
  ASSERT_TRUE(forged_gate.finding.has_value());
  EXPECT_EQ(forged_gate.finding->kind, CallOrderFinding::Kind::started_early);
}

TEST(CallOrder, TheToleranceIsOneMicrosecondOnEitherSide) {
  // The marker starts at 310 us and runs to 320 us here: what counts is its start, not its end.
  auto with_long_marker = [](std::vector<ActivityRecord> call) {
    call.push_back(kernel("call_gate_kernel", kLegacy, 0, 300));
    call.push_back(kernel("call_marker_kernel", kLegacy, 310, 320));
    return call;
  };
  auto at_ns = [](ActivityRecord r, uint64_t start_ns, uint64_t end_ns) {
    r.start = start_ns;
    r.end = end_ns;
    return r;
  };
  const ActivityRecord side = kernel("side", kHidden, 0, 0);
  EXPECT_FALSE(judge(with_long_marker({at_ns(side, 301'000, 310'500)})).finding.has_value());
  const auto late = judge(with_long_marker({at_ns(side, 301'000, 311'500)}));
  ASSERT_TRUE(late.finding.has_value());
  EXPECT_EQ(late.finding->kind, CallOrderFinding::Kind::ended_late);
  EXPECT_DOUBLE_EQ(late.finding->by_us, 1.5);
  EXPECT_FALSE(judge(with_long_marker({at_ns(side, 299'500, 305'000)})).finding.has_value());
  const auto early = judge(with_long_marker({at_ns(side, 298'500, 305'000)}));
  ASSERT_TRUE(early.finding.has_value());
  EXPECT_EQ(early.finding->kind, CallOrderFinding::Kind::started_early);
  EXPECT_DOUBLE_EQ(early.finding->by_us, 1.5);
}

TEST(CallOrder, ForgedBracketsBeforeTheRealOnesDoNotDecide) {
  // Listed first, a forged marker that starts before the real one and a forged gate that ends
  // before the real one: the marker that started first and the gate that ended last decide.
  std::vector<ActivityRecord> records = {kernel("call_marker_kernel", kLegacy, 302, 303),
                                         kernel("call_gate_kernel", kLegacy, 0, 50), kernel("side", kHidden, 100, 304)};
  for (const auto& r : bracketed({})) records.push_back(r);
  const auto v = judge(records);
  // Rejected either way: judged by the forged marker, the real marker itself ended "late".
  ASSERT_TRUE(v.judged);
  EXPECT_TRUE(v.finding.has_value());
  // A forged gate queued on the default stream just before the real one (0-50 us, the real one
  // then 51-300 us) and listed first: had it decided, `side` (from 100 us) and everything else
  // would have kept the order. The gate that ended last decides.
  const std::vector<ActivityRecord> forged_gate_first = {kernel("call_gate_kernel", kLegacy, 0, 50),
                                                         kernel("side", kHidden, 100, 200),
                                                         kernel("call_gate_kernel", kLegacy, 51, 300),
                                                         kernel("call_marker_kernel", kLegacy, 310, 311)};
  const auto g = judge(forged_gate_first);
  ASSERT_TRUE(g.finding.has_value());
  EXPECT_EQ(g.finding->kind, CallOrderFinding::Kind::started_early);
}

TEST(CallOrder, EitherBracketMissingMeansNotJudged) {
  EXPECT_FALSE(judge({kernel("call_gate_kernel", kLegacy, 0, 300), kernel("side", kHidden, 1, 2)}).judged);
  EXPECT_FALSE(judge({kernel("call_marker_kernel", kLegacy, 310, 311), kernel("side", kHidden, 1, 2)}).judged);
  EXPECT_TRUE(judge(bracketed({})).judged);
}

TEST(CallOrder, BracketsOnAnotherStreamAreNotBrackets) {
  // A kernel of the gate's name on a hidden stream is the call's work, and without the real
  // brackets nothing is judged (the caller falls back to the host clock).
  const auto v = judge({kernel("call_gate_kernel", kHidden, 0, 300), kernel("call_marker_kernel", kHidden, 310, 311)});
  EXPECT_FALSE(v.judged);
  EXPECT_FALSE(judge({kernel("saxpy", kGiven, 1, 2)}).judged);
}

}  // namespace
}  // namespace kb::judge
