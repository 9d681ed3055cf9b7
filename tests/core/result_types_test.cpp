#include "core/result_types.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(DescribePhases, EveryPhaseInOrderWithOneDecimal) {
  const std::map<std::string, double> phases = {{"timing", 1.04}, {"start", 0.38}, {"sandbox", 0.0}};
  EXPECT_EQ(describe_phases(phases), "sandbox 0.0 s, start 0.4 s, timing 1.0 s");
  EXPECT_EQ(describe_phases({}), "");
}

TEST(DescribePhases, LeavesOutThePhasesShorterThanAsked) {
  const std::map<std::string, double> phases = {{"calls under the tool", 0.3}, {"start", 2.6}, {"sandbox", 0.01}};
  EXPECT_EQ(describe_phases(phases, 0.05), "calls under the tool 0.3 s, start 2.6 s");
  EXPECT_EQ(describe_phases(phases, 5), "");
}

}  // namespace
}  // namespace kb
