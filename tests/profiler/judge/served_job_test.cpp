// What a variant server is told (served_job.h): enough to serve its own library, nothing about
// the judging. The server's process runs the variant, so these are the facts a candidate could read.
#include "profiler/judge/wire/served_job.h"

#include <gtest/gtest.h>

#include <set>

#include "profiler/judge/wire/job_io.h"

namespace kb::judge {
namespace {

HarnessJob judged_job() {
  HarnessJob job;
  job.mode = JobMode::verify_and_time;
  job.kernel = "saxpy";
  job.baseline_library = "/cache/original-7f3a.so";
  job.candidate_library = "/cache/candidate-91c2.so";
  job.size_labels = {"n=1024", "n=1000003"};
  job.args = {{"x", ArgRole::input, DType::float32, {1024, 1000003}, {}, "extreme", 0, 0, "", {}},
              {"y", ArgRole::inout, DType::float32, {1024, 1000003}, {}, "", 1e-4, 1e-5, "abs_inputs", {}},
              {"idx", ArgRole::input, DType::int32, {1024, 1000003}, {}, "", 0, 0, "", {{0, 1024}, {0, 1000003}}},
              {"a", ArgRole::scalar, DType::float32, {}, {"2.5", ""}, "mixed_sign", 0, 0, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {"1024", "1000003"}, "", 0, 0, "", {}}};
  job.flops = {2048, 2000006};
  job.bytes = {12288, 12000036};
  job.trials = 7;
  job.distributions = {"normal", "offset"};
  job.seed = 8234567890123456789ull;
  job.strict = true;
  job.under_sanitizer = true;
  job.device = 1;
  job.copy_bandwidth_gbps = 3350;
  job.fp32_tflops = 60;
  job.min_speedup = 1.07;
  job.metrics_size = 0;
  job.timed_sizes = 1;
  job.distribution_start = 3;
  job.wall_clock_check = false;
  job.bench.flush_l2 = false;
  job.bench.max_samples = 1234;
  return job;
}

TEST(ServedJob, TheCandidatesServerLearnsItsLibraryAndTheArgumentLayoutOnly) {
  const HarnessJob judged = judged_job();
  const std::string text = served_job_text(judged, judged.candidate_library);
  // Nothing of the judging: seeds, trials, distributions, mode, strictness, the sanitizer, the
  // tolerances, the other library, the roofline, the accept rule, the screening.
  for (const char* secret : {"8234567890123456789", "/cache/original-7f3a.so", "verify", "normal", "offset", "extreme",
                             "mixed_sign", "abs_inputs", "3350", "1.07", "1234", "0.0001", "saxpy"})
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " reached the server: " << text;

  const HarnessJob served = served_job(judged, judged.candidate_library);
  EXPECT_EQ(served.baseline_library, judged.candidate_library);  // its own, where either server looks
  EXPECT_TRUE(served.candidate_library.empty());
  EXPECT_EQ(served.mode, JobMode::time_baseline);
  EXPECT_FALSE(served.strict);
  EXPECT_FALSE(served.under_sanitizer);
  EXPECT_EQ(served.trials, 1);
  EXPECT_EQ(served.seed, 0u);
  EXPECT_EQ(served.timed_sizes, 0);
  EXPECT_EQ(served.distribution_start, 0);
  EXPECT_TRUE(served.flops.empty());
  EXPECT_TRUE(served.bytes.empty());
  // What it needs to lend its variant the judge's buffers and time it.
  EXPECT_EQ(served.device, 1);
  EXPECT_EQ(served.size_labels, judged.size_labels);
  EXPECT_FALSE(served.bench.flush_l2);
  ASSERT_EQ(served.args.size(), judged.args.size());
  for (size_t i = 0; i < served.args.size(); ++i) {
    EXPECT_EQ(served.args[i].name, judged.args[i].name);
    EXPECT_EQ(served.args[i].role, judged.args[i].role);
    EXPECT_EQ(served.args[i].dtype, judged.args[i].dtype);
    EXPECT_EQ(served.args[i].counts, judged.args[i].counts);
    EXPECT_EQ(served.args[i].values, judged.args[i].values);
    EXPECT_EQ(served.args[i].ranges, judged.args[i].ranges);
    EXPECT_TRUE(served.args[i].distribution.empty());
    EXPECT_EQ(served.args[i].rtol, 0);
    EXPECT_EQ(served.args[i].atol, 0);
  }
  // And the server's own reader takes it.
  const DecodedJob decoded = parse_job(text, "the served job");
  EXPECT_EQ(decoded.args.size(), judged.args.size());
}

TEST(ServedJob, BothServersOfAJobAreToldTheSameButTheirLibrary) {
  const HarnessJob judged = judged_job();
  HarnessJob original = served_job(judged, judged.baseline_library);
  HarnessJob candidate = served_job(judged, judged.candidate_library);
  original.baseline_library = candidate.baseline_library = "";
  EXPECT_EQ(nlohmann::json(original).dump(), nlohmann::json(candidate).dump());
}

// Verification's own sizes (the generalization sizes, drawn per job) are never listed: a candidate
// that could read them would know every size it is judged at and could be right at those alone.
TEST(ServedJob, VerificationsOwnSizesAreNotListed) {
  HarnessJob judged = judged_job();
  judged.size_labels.push_back("n=4099");
  judged.size_labels.push_back("n=2000006");
  judged.verify_only_sizes = 2;
  for (auto& a : judged.args) {
    if (!a.counts.empty()) a.counts.insert(a.counts.end(), {4099, 2000006});
    if (!a.values.empty()) a.values.insert(a.values.end(), {a.values[0], a.values[1]});
    if (!a.ranges.empty()) a.ranges.insert(a.ranges.end(), {{0, 4099}, {0, 2000006}});
  }
  judged.args[4].values = {"1024", "1000003", "4099", "2000006"};
  const std::string text = served_job_text(judged, judged.candidate_library);
  for (const char* drawn : {"4099", "2000006"})
    EXPECT_EQ(text.find(drawn), std::string::npos) << drawn << " reached the server: " << text;
  const HarnessJob served = served_job(judged, judged.candidate_library);
  EXPECT_EQ(served.size_labels, (std::vector<std::string>{"n=1024", "n=1000003"}));
  EXPECT_EQ(served.verify_only_sizes, 0);
  for (const auto& a : served.args) {
    EXPECT_LE(a.counts.size(), 2u) << a.name;
    EXPECT_LE(a.values.size(), 2u) << a.name;
    EXPECT_LE(a.ranges.size(), 2u) << a.name;
  }
  EXPECT_EQ(served.args[0].counts, (std::vector<int64_t>{1024, 1000003}));
  const DecodedJob decoded = parse_job(text, "the served job");
  EXPECT_EQ(decoded.all_size_count(), 2u);
}

TEST(ServedJob, LocalRunsGetSeedsFromTheOsNotTheJob) {
  std::set<uint64_t> seeds;
  for (int i = 0; i < 16; ++i) seeds.insert(fresh_server_seed());
  EXPECT_EQ(seeds.size(), 16u);
}

}  // namespace
}  // namespace kb::judge
