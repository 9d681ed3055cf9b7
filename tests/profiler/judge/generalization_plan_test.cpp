// The judge's side of generalization sizes: the configured and verification-only size sets of a
// job, the one call each verification-only set gets, and how a reason names it.
#include "profiler/judge/plans/generalization_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "profiler/judge/wire/served_job.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

// Two configured sets, then two generalization sets (n = 1 and n = 1000003).
HarnessJob general_job() {
  HarnessJob job;
  job.mode = JobMode::verify;
  job.kernel = "saxpy";
  job.baseline_library = "/tmp/base.so";
  job.candidate_library = "/tmp/cand.so";
  job.size_labels = {"n=1024", "n=4096", "n=1", "n=1000003"};
  job.args = {{"x", ArgRole::input, DType::float32, {1024, 4096, 1, 1000003}, {}, "", 0, 0, "", {}},
              {"y", ArgRole::output, DType::float32, {1024, 4096, 1, 1000003}, {}, "", 1e-5, 1e-6, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {"1024", "4096", "1", "1000003"}, "", 0, 0, "", {}}};
  job.seed = 1234;
  job.distributions = {"uniform", "normal", "offset"};
  job.verify_only_sizes = 2;
  return job;
}

TEST(GeneralizationPlan, ConfiguredSetsAreTheLeadingOnes) {
  const DecodedJob job = decode_job(general_job());
  EXPECT_EQ(job.size_count(), 2u) << "main trials, timing and metrics see only the configured sets";
  EXPECT_EQ(job.all_size_count(), 4u);
  EXPECT_FALSE(is_generalization_size(job, 1));
  EXPECT_TRUE(is_generalization_size(job, 2));
  EXPECT_TRUE(is_generalization_size(job, 3));
  EXPECT_FALSE(is_generalization_size(job, 4));
  EXPECT_EQ(metrics_size_index(job), 1u) << "the largest configured set, not the larger generalization one";
}

TEST(GeneralizationPlan, JobsWithoutThemKeepEverySet) {
  HarnessJob raw = general_job();
  raw.verify_only_sizes = 0;
  const DecodedJob job = decode_job(raw);
  EXPECT_EQ(job.size_count(), 4u);
  EXPECT_FALSE(is_generalization_size(job, 3));
}

TEST(GeneralizationPlan, TheJobFieldIsChecked) {
  HarnessJob raw = general_job();
  raw.verify_only_sizes = 4;
  EXPECT_THAT([&] { decode_job(raw); }, ::testing::ThrowsMessage<JobError>(HasSubstr("verify_only_sizes 4")));
  raw.verify_only_sizes = -1;
  EXPECT_THROW(decode_job(raw), JobError);
  raw = general_job();
  raw.mode = JobMode::time_baseline;
  raw.candidate_library.clear();
  EXPECT_THAT([&] { decode_job(raw); }, ::testing::ThrowsMessage<JobError>(HasSubstr("only a verification")));
  raw = general_job();
  raw.metrics_size = 2;
  EXPECT_THAT([&] { decode_job(raw); }, ::testing::ThrowsMessage<JobError>(HasSubstr("configured size sets")));
}

TEST(GeneralizationPlan, EachSetGetsItsOwnCallRepeatableFromTheJobSeed) {
  const DecodedJob job = decode_job(general_job());
  const GeneralizationCall a = generalization_call(job, 2), b = generalization_call(job, 3);
  EXPECT_NE(a.seed, b.seed);
  EXPECT_EQ(generalization_call(job, 2).seed, a.seed);
  std::set<uint64_t> main_seeds;  // the main verification's: seed + t * sizes + s
  for (uint64_t t = 0; t < 9; ++t)
    for (uint64_t s = 0; s < 2; ++s) main_seeds.insert(job.raw.seed + t * 2 + s);
  EXPECT_FALSE(main_seeds.count(a.seed));
  HarnessJob other = general_job();
  other.seed = 1235;
  EXPECT_NE(generalization_call(decode_job(other), 2).seed, a.seed) << "another job, other inputs";
  const auto& d = job.distributions;
  EXPECT_NE(std::find(d.begin(), d.end(), a.distribution), d.end()) << "one of the job's distributions";
}

TEST(GeneralizationPlan, ReasonsNameTheSetAsNotConfigured) {
  const DecodedJob job = decode_job(general_job());
  EXPECT_EQ(describe_generalization_size(job, 3), "generalization size n=1000003 (not one of the configured sizes)");
  const GeneralizationCall c{77, Distribution::normal};
  EXPECT_EQ(describe_generalization_call(job, 3, c),
            "generalization size n=1000003 (not one of the configured sizes; distribution normal, seed 77)");
}

TEST(GeneralizationPlan, MemoryIsCountedAndBounded) {
  const DecodedJob job = decode_job(general_job());
  // x: both sets and the pristine copy; y: both sets.
  EXPECT_EQ(generalization_bytes(job, 3, false), 1000003u * 4 * 5);
  EXPECT_EQ(generalization_bytes(job, 2, false), 4u * 5);
  EXPECT_TRUE(fits_free_memory(size_t{1} << 30, size_t{4} << 30));
  EXPECT_FALSE(fits_free_memory(size_t{3} << 30, size_t{3} << 30));
  EXPECT_FALSE(fits_free_memory(size_t{1}, size_t{100} << 20)) << "room is kept for the servers";
}

// A server is not told the generalization sets at all: it binds them from the counts each bind
// request carries (server_wire.h), so a candidate cannot list the sizes it will be judged at.
TEST(GeneralizationPlan, ServersAreNotToldTheGeneralizationSets) {
  const HarnessJob served = served_job(general_job(), "/tmp/cand.so");
  EXPECT_EQ(served.verify_only_sizes, 0);
  const DecodedJob job = decode_job(served);
  EXPECT_EQ(job.all_size_count(), 2u) << "only the configured sets";
  EXPECT_EQ(served.size_labels, (std::vector<std::string>{"n=1024", "n=4096"}));
  const std::string text = served_job_text(general_job(), "/tmp/cand.so");
  EXPECT_EQ(text.find("verify"), std::string::npos) << text;
  EXPECT_EQ(text.find("1000003"), std::string::npos) << text;
  EXPECT_EQ(parse_job(text, "the served job").all_size_count(), 2u);
}

}  // namespace
}  // namespace kb::judge
