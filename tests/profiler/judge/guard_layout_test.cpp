#include "profiler/judge/buffers/guard_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

TEST(GuardLayout, TheBufferStartsOnA256ByteBoundaryBetweenTwoGuardsOfAtLeast64KiB) {
  for (size_t bytes : {size_t{1}, size_t{4}, size_t{4000012}, size_t{64} << 10, (size_t{64} << 10) - 3}) {
    const GuardedLayout l = guarded_layout(bytes);
    EXPECT_EQ(l.data_offset % kDataAlignment, 0u) << bytes;
    EXPECT_GE(l.data_offset, size_t{64} << 10) << bytes;
    EXPECT_EQ(l.data_bytes, bytes);
    EXPECT_EQ(l.after_offset(), l.data_offset + bytes);
    EXPECT_GE(l.after_bytes(), size_t{64} << 10) << bytes;
    // The allocation's rounding belongs to the guard after the buffer: nothing is unwatched.
    EXPECT_EQ(l.data_offset + l.data_bytes + l.after_bytes(), l.allocation_bytes) << bytes;
    EXPECT_EQ(l.allocation_bytes % kGuardGranule, 0u) << bytes;
    EXPECT_LT(l.after_bytes(), kGuardAfterBytes + kGuardGranule) << "no more guard than the rounding needs";
  }
}

TEST(GuardLayout, AShiftMovesTheBufferPastTheBoundaryAndTheGuardsStayWhole) {
  const GuardedLayout plain = guarded_layout(1000);
  for (size_t shift : {size_t{4}, size_t{8}, size_t{16}}) {
    const GuardedLayout l = guarded_layout(1000, shift);
    // What a server adds to the base it mapped: the buffer's first byte, `shift` past the boundary.
    EXPECT_EQ(l.data_offset, plain.data_offset + shift);
    EXPECT_EQ(l.data_offset % kDataAlignment, shift);
    EXPECT_EQ(l.data_offset % 16, shift % 16);
    EXPECT_GE(l.after_bytes(), kGuardAfterBytes);
  }
}

GuardViolation after_end(uint64_t nearest, uint64_t farthest, uint64_t changed) {
  GuardViolation v;
  v.buffer = "output y";
  v.name = "y";
  v.element_bytes = 4;
  v.elements = 1000003;
  v.side = GuardSide::after_end;
  v.nearest = nearest;
  v.farthest = farthest;
  v.changed_bytes = changed;
  return v;
}

TEST(GuardLayout, AWriteOneElementPastTheEndIsNamedWithItsBufferSideOffsetAndElement) {
  const std::string s = describe_guard_violation(after_end(0, 3, 4));
  EXPECT_EQ(s, "writes outside output y: 4 bytes changed after its end, 0 to 3 bytes past it (element y[1000003])");
}

TEST(GuardLayout, AWriteFarPastTheEndNamesTheRangeOfElements) {
  const std::string s = describe_guard_violation(after_end(8, 4095, 3000));
  EXPECT_THAT(s, HasSubstr("3000 bytes changed after its end, 8 to 4095 bytes past it"));
  EXPECT_THAT(s, HasSubstr("(elements y[1000005] to y[1001026])"));
}

TEST(GuardLayout, AWriteBeforeTheStartCountsBackFromTheFirstElement) {
  GuardViolation v = after_end(1, 4, 4);
  v.side = GuardSide::before_start;
  v.buffer = "inout y";
  EXPECT_EQ(describe_guard_violation(v),
            "writes outside inout y: 4 bytes changed before its start, 1 to 4 bytes before it (element y[-1])");
  v.nearest = 5;
  v.farthest = 5;
  v.changed_bytes = 1;
  EXPECT_EQ(describe_guard_violation(v),
            "writes outside inout y: 1 byte changed before its start, 5 bytes before it (element y[-2])");
}

}  // namespace
}  // namespace kb::judge
