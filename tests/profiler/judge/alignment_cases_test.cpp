#include "profiler/judge/plans/alignment_cases.h"

#include <gtest/gtest.h>

namespace kb::judge {
namespace {

HarnessJob job_of(std::vector<std::pair<std::string, DType>> buffers) {
  HarnessJob job;
  job.mode = JobMode::verify_and_time;
  job.kernel = "k";
  job.baseline_library = "/tmp/base.so";
  job.candidate_library = "/tmp/cand.so";
  job.size_labels = {"n=4096", "n=1000", "n=1000003"};
  for (const auto& [name, type] : buffers)
    job.args.push_back({name, ArgRole::input, type, {4096, 1000, 1000003}, {}, "", 0, 0, "", {}});
  job.args.back().role = ArgRole::output;
  job.args.push_back({"n", ArgRole::size, DType::int32, {}, {"4096", "1000", "1000003"}, "", 0, 0, "", {}});
  return job;
}

TEST(AlignmentCases, Float32BuffersAreShiftedBy4And8And16Bytes) {
  const DecodedJob job = decode_job(job_of({{"x", DType::float32}, {"y", DType::float32}}));
  const auto cases = alignment_cases(job);
  ASSERT_EQ(cases.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(cases[k].shift, kAlignmentShifts[k]);
    EXPECT_EQ(cases[k].shifts, (std::vector<size_t>{kAlignmentShifts[k], kAlignmentShifts[k], 0}));
  }
  EXPECT_EQ(describe_alignment_case(job, cases[0]), "every buffer 4 bytes past a 256-byte boundary");
}

TEST(AlignmentCases, Float64OnlyGets8And16BytesAndTheCoincidingCaseOnce) {
  const DecodedJob job = decode_job(job_of({{"x", DType::float64}, {"y", DType::int64}}));
  const auto cases = alignment_cases(job);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].shifts, (std::vector<size_t>{8, 8, 0}));
  EXPECT_EQ(cases[1].shifts, (std::vector<size_t>{16, 16, 0}));
}

TEST(AlignmentCases, MixedElementSizesRoundEachBufferUpAndTheReasonSaysSo) {
  const DecodedJob job = decode_job(job_of({{"x", DType::float64}, {"ids", DType::int32}, {"y", DType::float16}}));
  const auto cases = alignment_cases(job);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].shifts, (std::vector<size_t>{8, 4, 4, 0}));  // differs from the 8-byte case: kept
  EXPECT_EQ(cases[1].shifts, (std::vector<size_t>{8, 8, 8, 0}));
  EXPECT_EQ(describe_alignment_case(job, cases[0]),
            "every buffer 4 bytes past a 256-byte boundary, x 8 bytes (its elements are 8 bytes)");
  for (const auto& c : cases)
    for (size_t i = 0; i + 1 < c.shifts.size(); ++i)
      EXPECT_EQ(c.shifts[i] % dtype_size(job.args[i].type), 0u) << "a buffer's elements stay whole";
}

TEST(AlignmentCases, OneByteElementsTakeEveryShift) {
  const DecodedJob job = decode_job(job_of({{"x", DType::uint8}, {"y", DType::int8}}));
  const auto cases = alignment_cases(job);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].shifts, (std::vector<size_t>{4, 4, 0}));
}

TEST(AlignmentCases, TheSmallestSizeSetIsTheOneWithTheFewestBytes) {
  const DecodedJob job = decode_job(job_of({{"x", DType::float32}, {"y", DType::float32}}));
  EXPECT_EQ(smallest_size_index(job), 1u);  // n=1000, not the first nor the last
}

}  // namespace
}  // namespace kb::judge
