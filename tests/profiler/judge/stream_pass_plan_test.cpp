// The host decisions of the stream contract (stream_choice.h, stream_pass_plan.h): which stream a
// launcher is given, where the judge orders its own work around a call, and when and where the
// per-thread default-stream pass runs and how it reads.
#include "profiler/judge/plans/stream_pass_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profiler/judge/buffers/stream_choice.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

HarnessJob stream_saxpy_job(bool with_stream) {
  HarnessJob job;
  job.mode = JobMode::verify_and_time;
  job.kernel = "saxpy_stream";
  job.baseline_library = "/tmp/base.so";
  job.candidate_library = "/tmp/cand.so";
  job.size_labels = {"n=1048576", "n=4096", "n=1000003"};
  job.args = {{"x", ArgRole::input, DType::float32, {1048576, 4096, 1000003}, {}, "", 0, 0, "", {}},
              {"y", ArgRole::inout, DType::float32, {1048576, 4096, 1000003}, {}, "", 1e-4, 1e-5, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {"1048576", "4096", "1000003"}, "", 0, 0, "", {}}};
  if (with_stream) job.args.push_back({"strm", ArgRole::stream, DType::float32, {}, {}, "", 0, 0, "", {}});
  job.seed = 7;
  return job;
}

TEST(StreamChoice, OnlyTheThreeChoicesComeOffTheWire) {
  StreamChoice c = StreamChoice::per_thread_default;
  EXPECT_TRUE(stream_choice_from_wire(0, c));
  EXPECT_EQ(c, StreamChoice::launcher_stream);
  EXPECT_TRUE(stream_choice_from_wire(2, c));
  EXPECT_EQ(c, StreamChoice::second_caller);
  EXPECT_TRUE(stream_choice_from_wire(1, c));
  EXPECT_EQ(c, StreamChoice::per_thread_default);
  EXPECT_FALSE(stream_choice_from_wire(3, c));
  EXPECT_FALSE(stream_choice_from_wire(-1, c));
  EXPECT_EQ(c, StreamChoice::per_thread_default);  // unchanged by a refused value
}

TEST(StreamChoice, TheJudgeOrdersItsWorkOnTheGivenStreamElseOnTheLegacyDefaultStream) {
  // With a stream argument (a non-blocking stream) nothing on the legacy stream would bracket the
  // launcher's work: the flush, blocker, events, gate and marker go to the stream it was given.
  EXPECT_EQ(order_stream_for(true), OrderStream::given_stream);
  EXPECT_EQ(order_stream_for(false), OrderStream::legacy_default);
}

TEST(StreamChoice, ReasonsNameTheStreamTheLauncherWasGiven) {
  EXPECT_EQ(describe_given_stream("stream", StreamChoice::launcher_stream), "the stream argument 'stream'");
  EXPECT_EQ(describe_given_stream("s", StreamChoice::per_thread_default),
            "the stream argument 's' (the per-thread default stream)");
  EXPECT_EQ(describe_given_stream("", StreamChoice::launcher_stream), "the default stream");
}

TEST(StreamPassPlan, RunsAtTheSmallestSizeSetOnlyForALauncherWithAStream) {
  EXPECT_EQ(per_thread_pass_size(decode_job(stream_saxpy_job(false))), std::nullopt);
  const auto size = per_thread_pass_size(decode_job(stream_saxpy_job(true)));
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, 1u);  // n=4096, not the first size set
  HarnessJob no_sizes = stream_saxpy_job(true);
  no_sizes.size_labels.clear();
  DecodedJob d;
  d.raw = no_sizes;
  d.args = decode_job(stream_saxpy_job(true)).args;
  EXPECT_EQ(per_thread_pass_size(d), std::nullopt);
}

TEST(StreamPassPlan, TheConditionSkipAndFailureNameTheRuleAndTheCase) {
  const DecodedJob job = decode_job(stream_saxpy_job(true));
  const std::string condition = describe_per_thread_condition(job, 1, "uniform", 42);
  EXPECT_EQ(condition,
            "the per-thread default stream (cudaStreamPerThread) as the stream argument 'strm' (size n=4096, "
            "distribution uniform, seed 42)");
  const std::string skip = per_thread_skip_line(condition, "cudaErrorInvalidResourceHandle");
  EXPECT_THAT(skip, HasSubstr(condition));
  EXPECT_THAT(skip, HasSubstr("the original fails (cudaErrorInvalidResourceHandle)"));
  EXPECT_THAT(skip, HasSubstr("not held to it"));
  const std::string why = per_thread_failure("output y differs at index 3");
  EXPECT_THAT(why, HasSubstr("per-thread default stream"));
  EXPECT_THAT(why, HasSubstr("output y differs at index 3"));
}

}  // namespace
}  // namespace kb::judge
