#include "profiler/judge/wire/job_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

HarnessJob saxpy_job() {
  HarnessJob job;
  job.mode = JobMode::verify_and_time;
  job.kernel = "saxpy";
  job.baseline_library = "/tmp/base.so";
  job.candidate_library = "/tmp/cand.so";
  job.size_labels = {"n=1024", "n=1000003"};
  job.args = {{"x", ArgRole::input, DType::float32, {1024, 1000003}, {}, "", 0, 0, "", {}},
              {"y", ArgRole::inout, DType::float32, {1024, 1000003}, {}, "", 1e-4, 1e-5, "", {}},
              {"a", ArgRole::scalar, DType::float32, {}, {"2.5", ""}, "mixed_sign", 0, 0, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {"1024", "1000003"}, "", 0, 0, "", {}}};
  job.bytes = {12288, 12000036};
  job.seed = 99;
  return job;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("kb_judge_job_io_" + std::to_string(::getpid()) + "_" + name);
}

TEST(JobIo, DecodesArgumentsRolesTypesAndOverrides) {
  const DecodedJob job = decode_job(saxpy_job());
  ASSERT_EQ(job.args.size(), 4u);
  EXPECT_EQ(job.args[1].role, ArgRole::inout);
  EXPECT_TRUE(job.args[1].is_written());
  EXPECT_EQ(job.args[1].tolerance.rtol, 1e-4);
  EXPECT_TRUE(job.args[2].has_distribution);
  EXPECT_EQ(job.args[2].distribution, Distribution::mixed_sign);
  EXPECT_EQ(job.args[3].type, DType::int32);
  EXPECT_DOUBLE_EQ(parse_value(job.args[3], 1), 1000003);
  EXPECT_DOUBLE_EQ(parse_value(job.args[2], 0), 2.5);
  EXPECT_EQ(job.distributions.size(), 6u);  // HarnessJob's default: every distribution
  EXPECT_EQ(job.distributions[4], Distribution::offset);
  EXPECT_EQ(job.distributions[5], Distribution::extreme);
  EXPECT_EQ(job.args[1].error_scale, ErrorScale::plain);
  EXPECT_EQ(metrics_size_index(job), 1u);  // the larger size set
}

// A workspace decodes as a lent buffer that the judge neither fills nor compares, and a job whose
// only written buffer is a workspace has no result to verify.
TEST(JobIo, AWorkspaceIsABufferNeitherFilledNorCompared) {
  HarnessJob raw = saxpy_job();
  raw.args.push_back({"scratch", ArgRole::workspace, DType::float32, {256, 4096}, {}, "", 0, 0, "", {}});
  const DecodedJob job = decode_job(nlohmann::json(raw).get<HarnessJob>());
  ASSERT_EQ(job.args.size(), 5u);
  const DecodedArg& w = job.args[4];
  EXPECT_EQ(w.role, ArgRole::workspace);
  EXPECT_TRUE(w.is_buffer());
  EXPECT_TRUE(w.is_workspace());
  EXPECT_FALSE(w.is_written()) << "never compared";
  EXPECT_FALSE(w.is_read()) << "never filled with inputs";
  EXPECT_TRUE(role_is_poisoned(w.role));
  EXPECT_EQ(w.counts, (std::vector<int64_t>{256, 4096}));

  raw.args[1].role = ArgRole::workspace;  // y was the only result
  raw.args.pop_back();
  EXPECT_THROW(decode_job(raw), JobError);
}

TEST(JobIo, ErrorScaleAndTheNewDistributionsDecodeFromJson) {
  HarnessJob raw = saxpy_job();
  raw.args[1].error_scale = "abs_inputs";
  raw.args[0].distribution = "offset";
  raw.distributions = {"extreme", "uniform"};
  const DecodedJob job = decode_job(nlohmann::json(raw).get<HarnessJob>());
  EXPECT_EQ(job.args[1].error_scale, ErrorScale::abs_inputs);
  EXPECT_EQ(job.args[0].distribution, Distribution::offset);
  EXPECT_EQ(job.distributions.front(), Distribution::extreme);
  // A job written before the field existed reads as the plain rule.
  nlohmann::json old = nlohmann::json(saxpy_job());
  for (auto& a : old["args"]) a.erase("error_scale");
  EXPECT_EQ(decode_job(old.get<HarnessJob>()).args[1].error_scale, ErrorScale::plain);
}

TEST(JobIo, JsonRoundTripThroughAFile) {
  const auto path = temp_file("job.json");
  write_json_file(path.string(), nlohmann::json(saxpy_job()));
  const DecodedJob job = load_job(path.string());
  EXPECT_EQ(job.raw.kernel, "saxpy");
  EXPECT_EQ(job.raw.seed, 99u);
  EXPECT_EQ(job.raw.args[0].counts[1], 1000003);
  EXPECT_EQ(job.raw.bench.max_noise, HarnessBench{}.max_noise);
  EXPECT_FALSE(job.raw.under_sanitizer);
  std::filesystem::remove(path);
}

TEST(JobIo, SanitizerFlagReachesTheRunner) {
  // The judge leaves CUPTI tracing off under compute-sanitizer, which holds CUPTI itself.
  HarnessJob raw = saxpy_job();
  raw.mode = JobMode::verify;
  raw.under_sanitizer = true;
  const auto path = temp_file("sanitize.json");
  write_json_file(path.string(), nlohmann::json(raw));
  EXPECT_TRUE(load_job(path.string()).raw.under_sanitizer);
  std::filesystem::remove(path);
}

TEST(JobIo, ResultJsonCarriesVerdictAndAddedFields) {
  EvalResult r;
  r.verdict = Verdict::rejected;
  r.reason = "side stream";
  SizeTiming t;
  t.baseline.cupti_span_us = 12.5;
  t.baseline.notes = "graph";
  r.timings.push_back(t);
  r.baseline_metrics.kernel_count = 2;
  const auto path = temp_file("result.json");
  write_result(path.string(), r);
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("verdict"), "rejected");
  EXPECT_EQ(j.at("timings")[0].at("baseline").at("cupti_span_us"), 12.5);
  const EvalResult back = j.get<EvalResult>();
  EXPECT_EQ(back.verdict, Verdict::rejected);
  EXPECT_EQ(back.baseline_metrics.kernel_count, 2);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  std::filesystem::remove(path);
}

TEST(JobIo, ProblemsNameTheField) {
  auto expect_error = [](HarnessJob job, const std::string& part) {
    try {
      decode_job(job);
      ADD_FAILURE() << "no error for " << part;
    } catch (const JobError& e) {
      EXPECT_THAT(e.what(), HasSubstr(part));
    }
  };
  HarnessJob j = saxpy_job();
  j.args[0].counts.pop_back();
  expect_error(j, "args[0] ('x').counts has 1 entries, expected 2");
  j = saxpy_job();
  j.args[1].dtype = std::nullopt;
  expect_error(j, "args[1] ('y').dtype is missing");
  j = saxpy_job();
  j.args[3].values[0] = "12abc";
  expect_error(j, "'12abc' is not a int32 literal");
  j = saxpy_job();
  j.candidate_library.clear();
  expect_error(j, "candidate_library is empty");
  j = saxpy_job();
  j.args[1].role = ArgRole::input;
  expect_error(j, "nothing to verify");
  j = saxpy_job();
  j.distributions = {"uniform", "cauchy"};
  expect_error(j, "unknown distribution 'cauchy'");
  j = saxpy_job();
  j.args[1].error_scale = "relative";
  expect_error(j, "args[1] ('y').error_scale: unknown error scale 'relative'");
  EXPECT_THROW(load_job("/nonexistent/job.json"), JobError);
}

// Names the judge does not know fail while the job's JSON is read, naming the field.
TEST(JobIo, UnknownNamesInTheJsonNameTheField) {
  auto expect_error = [](const nlohmann::json& j, const std::string& part) {
    try {
      parse_job(j.dump(), "the job text");
      ADD_FAILURE() << "no error for " << part;
    } catch (const JobError& e) {
      EXPECT_THAT(e.what(), HasSubstr(part));
    }
  };
  nlohmann::json j = saxpy_job();
  EXPECT_NO_THROW(parse_job(j.dump(), "the job text"));
  j["args"][1]["dtype"] = "float8";
  expect_error(j, "the job text does not match the job format");
  expect_error(j, "job field args ('y').dtype: unknown dtype 'float8'");
  j = saxpy_job();
  j["mode"] = "benchmark";
  expect_error(j, "job field mode: unknown mode 'benchmark'");
  j = saxpy_job();
  j["args"][0]["role"] = "river";
  expect_error(j, "job field args ('x').role: unknown role 'river' (expected input, output, inout, scalar, size, "
                  "stream or workspace)");
  j = saxpy_job();
  j["args"][1]["dtype"] = "";
  expect_error(j, "args[1] ('y').dtype is missing");
}

// A production launcher's shape: token ids in [0, vocab) and a trailing cudaStream_t.
TEST(JobIo, StreamArgumentsAndIndexRangesDecodeFromJson) {
  HarnessJob raw = saxpy_job();
  raw.args.push_back({"ids", ArgRole::input, DType::int32, {1024, 1000003}, {}, "", 0, 0, "", {{0, 32000}, {5, 7}}});
  raw.args.push_back({"stream", ArgRole::stream, std::nullopt, {}, {}, "", 0, 0, "", {}});
  const DecodedJob job = decode_job(nlohmann::json(raw).get<HarnessJob>());
  ASSERT_EQ(job.args.size(), 6u);
  const DecodedArg& ids = job.args[4];
  ASSERT_TRUE(ids.has_range());
  EXPECT_EQ(ids.ranges[0].lo, 0);
  EXPECT_EQ(ids.ranges[0].hi, 32000);
  EXPECT_EQ(ids.ranges[1].lo, 5);
  EXPECT_EQ(ids.ranges[1].hi, 7);
  EXPECT_FALSE(job.args[0].has_range());
  const DecodedArg& stream = job.args[5];
  EXPECT_EQ(stream.role, ArgRole::stream);
  EXPECT_TRUE(stream.is_stream());
  EXPECT_FALSE(stream.is_buffer());
  EXPECT_FALSE(stream.is_value()) << "no host value travels for a stream";
  ASSERT_NE(stream_arg(job), nullptr);
  EXPECT_EQ(stream_arg(job)->name, "stream");
  EXPECT_EQ(stream_arg(decode_job(saxpy_job())), nullptr);
  EXPECT_EQ(metrics_size_index(job), 1u) << "a stream moves no bytes";
}

TEST(JobIo, BadRangesAndStreamsNameTheField) {
  auto expect_error = [](HarnessJob j, const std::string& needle) {
    try {
      decode_job(j);
      ADD_FAILURE() << "expected a JobError mentioning " << needle;
    } catch (const JobError& e) {
      EXPECT_THAT(e.what(), HasSubstr(needle));
    }
  };
  HarnessJob j = saxpy_job();
  j.args.push_back({"ids", ArgRole::input, DType::int32, {4, 4}, {}, "", 0, 0, "", {{0, 10}}});
  expect_error(j, "args[4] ('ids').ranges has 1 entries, expected 2");
  j.args.back().ranges = {{0, 10}, {10, 10}};
  expect_error(j, "args[4] ('ids').ranges[1]: [10, 10) is empty");
  j.args.back().ranges = {{0, 10}, {0, 1, 2}};
  expect_error(j, "ranges[1]: expected [lo, hi]");
  j.args.back().dtype = DType::int8;
  j.args.back().ranges = {{0, 10}, {0, 200}};
  expect_error(j, "ranges[1]: [0, 200) does not fit int8");
  j.args.back().dtype = DType::float32;
  j.args.back().ranges = {{0, 10}, {0, 10}};
  expect_error(j, "only integer inputs take a range");
  j = saxpy_job();
  j.args[2].ranges = {{0, 10}, {0, 10}};
  j.args[2].dtype = DType::int32;
  expect_error(j, "args[2] ('a').ranges: only inputs take a range, not a scalar");
  j = saxpy_job();
  j.args.push_back({"stream", ArgRole::stream, std::nullopt, {4, 4}, {}, "", 0, 0, "", {}});
  expect_error(j, "args[4] ('stream'): a stream argument takes no counts, values or ranges");
}

TEST(JobIo, InvalidJsonIsAJobError) {
  const auto path = temp_file("bad.json");
  std::ofstream(path) << "{ \"mode\": ";
  EXPECT_THROW(load_job(path.string()), JobError);
  std::ofstream(path) << "{ \"trials\": \"many\" }";
  EXPECT_THROW(load_job(path.string()), JobError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kb::judge
