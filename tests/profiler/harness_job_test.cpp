// make_harness_job: every expression evaluated per size set, default bytes, tolerances.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "config/size_expression.h"
#include "profiler/evaluate/jobs/harness_job_builder.h"

namespace kb {
namespace {

const char* kSaxpyJobConfig = R"toml(
[verify]
trials = 3
seed = 42
distributions = ["uniform", "normal"]

[bench]
min_time_s = 0.25
flush_l2 = false

[[kernel]]
name = "layer"
source = "src/layer.cu"
launcher = "ns::launch_layer"
sizes = [{ rows = 4, cols = 8 }, { rows = 1000, cols = 3001 }]
flops = "8*rows*cols"
tolerance = { float32 = { rtol = 1e-3, atol = 2e-3 } }
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "rows*cols"
  distribution = "normal"
  [[kernel.arg]]
  name = "acc"
  role = "inout"
  dtype = "float64"
  count = "rows"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float16"
  count = "ceil_div(rows*cols, 2)"
  error_scale = "abs_inputs"
  [[kernel.arg]]
  name = "rows"
  role = "size"
  dtype = "int32"
  value = "rows"
  [[kernel.arg]]
  name = "cols"
  role = "size"
  dtype = "int64"
  value = "cols"
  [[kernel.arg]]
  name = "eps"
  role = "scalar"
  dtype = "float32"
  value = 1e-5
  [[kernel.arg]]
  name = "alpha"
  role = "scalar"
  dtype = "float32"
)toml";

// The loader checks that the kernel's source exists: a repository with just that file.
config::Config load_saxpy_job_config() {
  static const std::filesystem::path root = [] {
    auto r = std::filesystem::temp_directory_path() / ("kb-job-" + std::to_string(getpid()));
    std::filesystem::create_directories(r / "src");
    std::ofstream(r / "src" / "layer.cu") << "// layer\n";
    return r;
  }();
  return config::load_config_text(kSaxpyJobConfig, "kernelbot.toml", root);
}

TEST(HarnessJob, EvaluatesEveryExpressionPerSizeSet) {
  auto config = load_saxpy_job_config();
  HarnessJob job = make_harness_job(config, config.kernels[0]);
  EXPECT_EQ(job.mode, JobMode::verify_and_time);
  EXPECT_EQ(job.kernel, "layer");
  ASSERT_EQ(job.size_labels.size(), 2u);
  EXPECT_EQ(job.size_labels[0], "cols=8,rows=4");
  ASSERT_EQ(job.args.size(), 7u);

  const HarnessArg& x = job.args[0];
  EXPECT_EQ(x.role, ArgRole::input);
  EXPECT_EQ(x.dtype, DType::float32);
  EXPECT_EQ(x.counts, (std::vector<int64_t>{32, 3001000}));
  EXPECT_EQ(x.distribution, "normal");
  EXPECT_EQ(x.rtol, 0);  // inputs carry no tolerance

  EXPECT_EQ(job.args[1].counts, (std::vector<int64_t>{4, 1000}));
  EXPECT_EQ(job.args[1].rtol, 1e-10);  // float64 from [verify] defaults
  EXPECT_EQ(job.args[2].counts, (std::vector<int64_t>{16, 1500500}));
  EXPECT_EQ(job.args[2].rtol, 1e-2);  // float16 default
  EXPECT_EQ(job.args[2].atol, 1e-3);
  EXPECT_EQ(job.args[2].error_scale, "abs_inputs");
  EXPECT_EQ(job.args[1].error_scale, "") << "the plain rule unless the spec asks";

  EXPECT_EQ(job.args[3].values, (std::vector<std::string>{"4", "1000"}));
  EXPECT_EQ(job.args[4].values, (std::vector<std::string>{"8", "3001"}));
  EXPECT_TRUE(job.args[3].counts.empty());
  EXPECT_EQ(std::stod(job.args[5].values[0]), 1e-5);
  EXPECT_EQ(job.args[6].values, (std::vector<std::string>{"", ""})) << "no value: random per trial";

  EXPECT_EQ(job.flops, (std::vector<double>{256, 8.0 * 1000 * 3001}));
  // x read once (4 B), acc read and written (2 x 8 B), y written once (2 B).
  EXPECT_EQ(job.bytes[0], 32 * 4 + 2 * 4 * 8 + 16 * 2);
  EXPECT_EQ(job.bytes[1], 3001000.0 * 4 + 2 * 1000 * 8 + 1500500.0 * 2);

  EXPECT_EQ(job.trials, 3);
  EXPECT_EQ(job.seed, 42u);
  EXPECT_EQ(job.distributions, (std::vector<std::string>{"uniform", "normal"}));
  EXPECT_EQ(job.bench.min_time_s, 0.25);
  EXPECT_FALSE(job.bench.flush_l2);

  // The kernel's tolerance override applies to its float32 outputs.
  auto config2 = config;
  config2.kernels[0].args[2].dtype = DType::float32;
  EXPECT_EQ(make_harness_job(config2, config2.kernels[0]).args[2].rtol, 1e-3);
  EXPECT_EQ(make_harness_job(config2, config2.kernels[0]).args[2].atol, 2e-3);
}

// Every [bench] timing setting reaches the job, each to its own field.
TEST(HarnessJob, EveryBenchSettingReachesTheJob) {
  auto config = load_saxpy_job_config();
  auto& b = config.bench;
  b.warmup_runs = 7;
  b.min_time_s = 0.5;
  b.min_samples = 11;
  b.max_samples = 99;
  b.max_noise = 0.02;
  b.timeout_s = 33;
  b.flush_l2 = false;
  b.graph_below_us = 4;
  b.max_clock_sag = 0.1;
  b.max_error = 0.003;
  const HarnessBench j = make_harness_job(config, config.kernels[0]).bench;
  EXPECT_EQ(j.warmup_runs, 7);
  EXPECT_EQ(j.min_time_s, 0.5);
  EXPECT_EQ(j.min_samples, 11);
  EXPECT_EQ(j.max_samples, 99);
  EXPECT_EQ(j.max_noise, 0.02);
  EXPECT_EQ(j.timeout_s, 33);
  EXPECT_FALSE(j.flush_l2);
  EXPECT_EQ(j.graph_below_us, 4);
  EXPECT_EQ(j.max_clock_sag, 0.1);
  EXPECT_EQ(j.max_error, 0.003);
}

// A workspace reaches the judge as a lent buffer with its counts, without a tolerance, and adds
// nothing to the default bytes moved (a candidate may not touch it).
TEST(HarnessJob, AWorkspaceIsLentWithoutToleranceOrBytes) {
  auto config = load_saxpy_job_config();
  const HarnessJob before = make_harness_job(config, config.kernels[0]);
  config::ArgSpec scratch;
  scratch.name = "scratch";
  scratch.role = ArgRole::workspace;
  scratch.dtype = DType::float32;
  scratch.count = "rows*cols";
  config.kernels[0].args.push_back(scratch);
  const HarnessJob job = make_harness_job(config, config.kernels[0]);
  ASSERT_EQ(job.args.size(), before.args.size() + 1);
  const HarnessArg& w = job.args.back();
  EXPECT_EQ(w.role, ArgRole::workspace);
  EXPECT_EQ(w.counts, (std::vector<int64_t>{32, 3001000}));
  EXPECT_EQ(w.rtol, 0);
  EXPECT_EQ(w.atol, 0);
  EXPECT_EQ(job.bytes, before.bytes);
  EXPECT_EQ(nlohmann::json(job)["args"].back()["role"], "workspace");
}

TEST(HarnessJob, BytesOverrideAndFreshSeeds) {
  auto config = load_saxpy_job_config();
  config.kernels[0].bytes = "rows*cols*4 + 100";
  config.verify.seed = 0;
  HarnessJob a = make_harness_job(config, config.kernels[0]);
  HarnessJob b = make_harness_job(config, config.kernels[0]);
  EXPECT_EQ(a.bytes, (std::vector<double>{228, 12004100}));
  EXPECT_NE(a.seed, 0u);
  EXPECT_NE(a.seed, b.seed) << "seed = 0 means a fresh seed per run";
}

TEST(HarnessJob, BadExpressionsThrow) {
  auto config = load_saxpy_job_config();
  config.kernels[0].args[3].value = "rows / 3.0";  // 4/3.0 is not an integer size
  EXPECT_THROW(make_harness_job(config, config.kernels[0]), config::ExpressionError);
  config.kernels[0].args[3].value = "rows / 3";  // integer division truncates, as in C: 1
  EXPECT_EQ(make_harness_job(config, config.kernels[0]).args[3].values[0], "1");
  config.kernels[0].args[0].count = "rows * unknown_name";
  EXPECT_THROW(make_harness_job(config, config.kernels[0]), config::ExpressionError);
}

TEST(HarnessJob, RoundTripsThroughJson) {
  auto config = load_saxpy_job_config();
  HarnessJob job = make_harness_job(config, config.kernels[0]);
  nlohmann::json j = job;
  HarnessJob back = j.get<HarnessJob>();
  EXPECT_EQ(back.args[0].counts, job.args[0].counts);
  EXPECT_EQ(back.bytes, job.bytes);
  EXPECT_EQ(back.seed, job.seed);
  EXPECT_EQ(back.args[2].error_scale, "abs_inputs");
  EXPECT_EQ(back.args[2].role, ArgRole::output);
  EXPECT_EQ(back.args[2].dtype, DType::float16);
  EXPECT_EQ(back.mode, job.mode);
  // On the wire, roles, dtypes and modes keep their names.
  EXPECT_EQ(j["mode"], "verify_and_time");
  EXPECT_EQ(j["args"][2]["role"], "output");
  EXPECT_EQ(j["args"][2]["dtype"], "float16");
  // The job's defaults are the config's: every distribution the harness has, the trials, the
  // timing settings and the speedup a win needs.
  const HarnessJob defaults;
  const config::Config config_defaults;
  EXPECT_EQ(defaults.distributions, config_defaults.verify.distributions);
  EXPECT_EQ(defaults.trials, config_defaults.verify.trials);
  EXPECT_EQ(defaults.min_speedup, config_defaults.bench.min_speedup);
  EXPECT_EQ(nlohmann::json(defaults.bench), nlohmann::json(config_defaults.bench.harness()));
}

// A gather's launcher: token ids in [0, vocab) per size set, and a trailing stream.
TEST(HarnessJob, StreamArgumentsAndRangesAreEvaluatedPerSizeSet) {
  auto config = load_saxpy_job_config();
  auto& spec = config.kernels[0];
  config::ArgSpec ids;
  ids.name = "ids";
  ids.role = ArgRole::input;
  ids.dtype = DType::int32;
  ids.count = "rows";
  ids.range = {"1", "cols - 1"};
  config::ArgSpec stream;
  stream.name = "stream";
  stream.role = ArgRole::stream;
  spec.args.push_back(ids);
  spec.args.push_back(stream);
  const HarnessJob job = make_harness_job(config, spec);
  ASSERT_EQ(job.args.size(), 9u);
  EXPECT_EQ(job.args[7].ranges, (std::vector<std::vector<int64_t>>{{1, 7}, {1, 3000}}));
  EXPECT_TRUE(job.args[0].ranges.empty());
  const HarnessArg& s = job.args[8];
  EXPECT_EQ(s.role, ArgRole::stream);
  EXPECT_FALSE(s.dtype.has_value()) << "a stream has no element type";
  EXPECT_EQ(nlohmann::json(s)["dtype"], "") << "written as no dtype on the wire";
  EXPECT_TRUE(s.counts.empty());
  EXPECT_TRUE(s.values.empty());
  // ids adds rows * 4 bytes read; the stream adds nothing.
  EXPECT_EQ(job.bytes[0], 32 * 4 + 2 * 4 * 8 + 16 * 2 + 4 * 4);

  const HarnessJob back = nlohmann::json(job).get<HarnessJob>();
  EXPECT_EQ(back.args[7].ranges, job.args[7].ranges);
  EXPECT_EQ(back.args[8].role, ArgRole::stream);
  EXPECT_FALSE(back.args[8].dtype.has_value());

  spec.args[7].range = {"cols", "cols"};
  try {
    make_harness_job(config, spec);
    ADD_FAILURE() << "an empty range must be refused";
  } catch (const config::ExpressionError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'ids': range [cols, cols] evaluates to the empty [8, 8)"),
              std::string::npos)
        << e.what();
  }
}

// A screening is the same job asking for less: one trial per size set, harshest inputs first,
// a short timing at the main size only.
TEST(HarnessJob, ScreeningJobHasOneTrialPerSizeAndTimesOnlyTheMainSize) {
  auto config = load_saxpy_job_config();
  config.verify.distributions = {"uniform", "normal", "large", "mixed_sign", "offset", "extreme"};
  config.bench.max_samples = 2000;
  config.bench.min_samples = 20;
  HarnessJob full = make_harness_job(config, config.kernels[0]);
  HarnessJob job = full;
  make_screening_job(job, ScreeningBench{12, 0.05});

  EXPECT_EQ(job.trials, 1);
  EXPECT_FALSE(job.strict);
  EXPECT_EQ(job.timed_sizes, 1);
  // No wall-clock cross-check: a screening never accepts; the full job checks.
  EXPECT_FALSE(job.wall_clock_check);
  EXPECT_TRUE(full.wall_clock_check);
  // Trial 0 at size s draws distributions[(s + start) % n]: size 0 offset, size 1 extreme.
  ASSERT_EQ(job.size_labels.size(), 2u);
  EXPECT_EQ(job.distributions[static_cast<size_t>(job.distribution_start) % 6], "offset");
  EXPECT_EQ(job.distributions[static_cast<size_t>(job.distribution_start + 1) % 6], "extreme");
  EXPECT_EQ(job.bench.max_samples, 12);
  EXPECT_EQ(job.bench.min_samples, 12);
  EXPECT_DOUBLE_EQ(job.bench.min_time_s, 0.05);
  // Everything else is the full job's: the same sizes, inputs, tolerances and seed.
  EXPECT_EQ(job.size_labels, full.size_labels);
  EXPECT_EQ(job.args[0].counts, full.args[0].counts);
  EXPECT_EQ(job.seed, full.seed);
  EXPECT_EQ(job.distributions, full.distributions);
  // The full job times every size and starts the cycle at the first distribution.
  EXPECT_EQ(full.timed_sizes, 0);
  EXPECT_EQ(full.distribution_start, 0);

  nlohmann::json j = job;
  HarnessJob back = j.get<HarnessJob>();
  EXPECT_EQ(back.timed_sizes, 1);
  EXPECT_FALSE(back.wall_clock_check);
  EXPECT_EQ(back.distribution_start, job.distribution_start);
  EXPECT_EQ(back.trials, 1);
}

TEST(HarnessJob, ScreeningNeverLengthensTheTiming) {
  auto config = load_saxpy_job_config();  // [bench] min_time_s = 0.25
  config.bench.max_samples = 10;
  config.bench.min_samples = 5;
  HarnessJob job = make_harness_job(config, config.kernels[0]);
  make_screening_job(job, ScreeningBench{30, 1.0});
  EXPECT_EQ(job.bench.max_samples, 10);
  EXPECT_EQ(job.bench.min_samples, 5);
  EXPECT_DOUBLE_EQ(job.bench.min_time_s, 0.25);
}

TEST(HarnessJob, ScreeningStartsAtTheHarshestDistributionsTheConfigAllows) {
  const std::vector<std::string> all = {"uniform", "normal", "large", "mixed_sign", "offset", "extreme"};
  EXPECT_EQ(harshest_distribution_start(all, 1), 4);  // offset
  EXPECT_EQ(harshest_distribution_start(all, 2), 4);  // offset, extreme
  EXPECT_EQ(harshest_distribution_start(all, 3), 4);  // offset, extreme, uniform
  EXPECT_EQ(harshest_distribution_start({"extreme", "uniform"}, 1), 0);
  EXPECT_EQ(harshest_distribution_start({"uniform", "normal", "extreme"}, 2), 2);
  // None allowed: the config's own order.
  EXPECT_EQ(harshest_distribution_start({"uniform", "normal"}, 2), 0);
  EXPECT_EQ(harshest_distribution_start({}, 2), 0);
}

}  // namespace
}  // namespace kb
