#include "profiler/harness/call_order.h"

#include <gtest/gtest.h>

namespace kb::harness {
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
  call.push_back(kernel("kb::harness::call_gate_kernel(int volatile*, int volatile*, unsigned long)", kLegacy, 0, 300));
  call.push_back(kernel("kb::harness::call_marker_kernel()", kLegacy, 310, 311));
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

TEST(CallOrder, BracketsOnAnotherStreamAreNotBrackets) {
  // A kernel of the gate's name on a hidden stream is the call's work, and without the real
  // brackets nothing is judged (the caller falls back to the host clock).
  const auto v = judge({kernel("call_gate_kernel", kHidden, 0, 300), kernel("call_marker_kernel", kHidden, 310, 311)});
  EXPECT_FALSE(v.judged);
  EXPECT_FALSE(judge({kernel("saxpy", kGiven, 1, 2)}).judged);
}

}  // namespace
}  // namespace kb::harness
