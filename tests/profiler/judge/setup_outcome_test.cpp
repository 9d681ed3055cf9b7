// The words the judge passes on when a library's one-time setup (kb_setup) fails.
#include "profiler/judge/library/setup_outcome.h"

#include <gtest/gtest.h>

using kb::judge::setup_failure_text;

TEST(SetupOutcome, SuccessIsNoText) { EXPECT_EQ(setup_failure_text(0, ""), ""); }

TEST(SetupOutcome, NonZeroReturnNamesTheValueAndTheSetup) {
  const std::string text = setup_failure_text(3, "");
  EXPECT_NE(text.find("kb_setup() returned 3"), std::string::npos) << text;
  EXPECT_NE(text.find("setup source"), std::string::npos) << text;
  EXPECT_EQ(text.find("CUDA error"), std::string::npos) << text;
}

TEST(SetupOutcome, APendingCudaErrorFailsASetupThatReturnedZero) {
  const std::string text = setup_failure_text(0, "out of memory (cudaErrorMemoryAllocation)");
  EXPECT_NE(text.find("left a CUDA error: out of memory"), std::string::npos) << text;
  EXPECT_NE(setup_failure_text(1, "x").find("returned 1"), std::string::npos);
  EXPECT_NE(setup_failure_text(1, "x").find("CUDA error: x"), std::string::npos);
}
