// Whose GPU memory it was (memory_blame.h): a shortage or a skipped size is the candidate's only
// when its process held more than the original's by more than the slack, and for a skip only when
// that extra memory would have made the size fit.
#include "profiler/judge/call/memory_blame.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

constexpr int64_t MiB = 1ll << 20;
constexpr int64_t GiB = 1ll << 30;

TEST(MemoryBlame, AProcessNoLargerThanTheOriginalsIsNotBlamed) {
  EXPECT_EQ(candidate_excess_bytes({600 * MiB, 600 * MiB}), 0);
  EXPECT_EQ(candidate_excess_bytes({600 * MiB + kMemoryBlameSlackBytes, 600 * MiB}), 0);
  EXPECT_FALSE(memory_shortage_blame({500 * MiB, 600 * MiB}, "allocating: out of memory"));
}

TEST(MemoryBlame, APoolReservedByTheCandidateIsBlamedForTheShortageWithBothSizes) {
  const auto blame = memory_shortage_blame({100 * GiB, 600 * MiB},
                                           "allocating the judge's check buffers: out of memory");
  ASSERT_TRUE(blame);
  EXPECT_THAT(*blame, HasSubstr("GPU memory taken: the candidate's process held 102400 MiB"));
  EXPECT_THAT(*blame, HasSubstr("101800 MiB more than the original's (600 MiB"));
  EXPECT_THAT(*blame, HasSubstr("allocating the judge's check buffers: out of memory"));
}

TEST(MemoryBlame, ASkippedSizeIsTheCandidatesOnlyWhenItsExtraMemoryWouldHaveMadeItFit) {
  const MemoryHeld hog{20 * GiB, 600 * MiB};
  // 10 GiB needed, 1 GiB free: the candidate's ~19.4 GiB extra would have made it fit.
  const auto blame = memory_skip_blame(hog, "size n=1e9 (unconfigured)", 10 * GiB, 1 * GiB);
  ASSERT_TRUE(blame);
  EXPECT_THAT(*blame,
              HasSubstr("so size n=1e9 (unconfigured) (10240 MiB needed, 1024 MiB free) could not be verified"));
  // 100 GiB needed: no process's memory would have made room; the skip stands.
  EXPECT_FALSE(memory_skip_blame(hog, "size n=1e10", 100 * GiB, 1 * GiB));
  // A candidate no larger than the original: the skip stands whatever the size.
  EXPECT_FALSE(memory_skip_blame({600 * MiB, 600 * MiB}, "size n=1e9", 2 * GiB, 1 * GiB));
}

TEST(MemoryBlame, OutOfMemoryIsReadFromTheJudgesErrorText) {
  EXPECT_TRUE(is_out_of_memory("allocating argument x: out of memory (cudaErrorMemoryAllocation)"));
  EXPECT_TRUE(is_out_of_memory("a variant server could not map the judge's buffers: cudaErrorMemoryAllocation"));
  EXPECT_FALSE(is_out_of_memory("creating the CUDA context: no CUDA-capable device is detected"));
}

}  // namespace
}  // namespace kb::judge
