// Generalization sizes: the sets a full verification adds to the configured ones.
#include "profiler/evaluate/jobs/generalization_sizes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "config/config_loader.h"
#include "config/size_expression.h"
#include "profiler/evaluate/jobs/harness_job_builder.h"
#include "profiler/evaluate/verdict/evaluation_outcome.h"
#include "profiler/evaluate/verdict/sanitizer_pass.h"

namespace kb {
namespace {

using config::SizeRule;
using config::SizeSet;
using Values = std::map<std::string, int64_t>;

// n float32 elements in and out: 8 bytes per n.
double saxpy_bytes(const Values& v) { return 8.0 * static_cast<double>(v.at("n")); }

// rows x cols float32 in and out.
double matrix_bytes(const Values& v) { return 8.0 * static_cast<double>(v.at("rows") * v.at("cols")); }

std::vector<SizeSet> sets(std::initializer_list<Values> v) {
  std::vector<SizeSet> out;
  for (const auto& x : v) out.push_back({x});
  return out;
}

TEST(GeneralizationSizes, SmallestOddPrimeAndBeyondForOneName) {
  const auto configured = sets({{{"n", 1 << 20}}, {{"n", 1 << 16}}});
  const auto g = generalization_size_sets(configured, {}, 42, saxpy_bytes);
  std::vector<int64_t> n;
  for (const auto& s : g) n.push_back(s.values.at("n"));
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[0], 1) << "the smallest allowed value";
  EXPECT_EQ(n[1] % 2, 1) << "an odd value";
  EXPECT_LE(n[1], 1 << 20);
  EXPECT_TRUE(is_prime(n[2])) << n[2];
  EXPECT_GT(n[3], 1 << 20) << "beyond the largest configured";
  EXPECT_LE(n[3], 2 << 20) << "at most twice it";
}

TEST(GeneralizationSizes, DeterministicForASeedAndDifferentAcrossSeeds) {
  const auto configured = sets({{{"n", 1000000}}});
  const auto a = generalization_size_sets(configured, {}, 7, saxpy_bytes);
  const auto b = generalization_size_sets(configured, {}, 7, saxpy_bytes);
  const auto c = generalization_size_sets(configured, {}, 8, saxpy_bytes);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].values, b[i].values);
  bool differs = a.size() != c.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].values != c[i].values;
  EXPECT_TRUE(differs) << "another job's seed draws other sizes";
}

TEST(GeneralizationSizes, OnlyValuesTheRulesAllow) {
  const std::map<std::string, SizeRule> rules = {{"n", SizeRule{8, 64, 1 << 20}}};
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const auto g = generalization_size_sets(sets({{{"n", 4096}}, {{"n", 1 << 19}}}), rules, seed, saxpy_bytes);
    ASSERT_FALSE(g.empty());
    for (const auto& s : g) {
      const int64_t n = s.values.at("n");
      EXPECT_TRUE(config::size_allowed(rules.at("n"), n)) << n << " (seed " << seed << ")";
      EXPECT_NE(n, 4096);
      EXPECT_NE(n, 1 << 19);
    }
    EXPECT_EQ(g.front().values.at("n"), 64) << "the smallest is min rounded up to the multiple";
    // A multiple of 8 is never odd or prime: the smallest and one beyond the largest.
    EXPECT_EQ(g.size(), 2u);
    EXPECT_GT(g.back().values.at("n"), 1 << 19);
  }
}

TEST(GeneralizationSizes, BeyondTheLargestStopsAtMax) {
  const std::map<std::string, SizeRule> rules = {{"n", SizeRule{1, 1, 1100}}};
  for (uint64_t seed = 1; seed < 100; ++seed)
    for (const auto& s : generalization_size_sets(sets({{{"n", 1000}}}), rules, seed, saxpy_bytes))
      EXPECT_LE(s.values.at("n"), 1100);
  // At max already: nothing beyond it.
  const std::map<std::string, SizeRule> at_max = {{"n", SizeRule{1, 1, 1000}}};
  for (const auto& s : generalization_size_sets(sets({{{"n", 1000}}}), at_max, 3, saxpy_bytes))
    EXPECT_LT(s.values.at("n"), 1000);
}

TEST(GeneralizationSizes, OtherNamesAreVariedAndBytesBounded) {
  const auto configured = sets({{{"rows", 4096}, {"cols", 4096}}, {{"rows", 1024}, {"cols", 2048}}});
  const double largest = matrix_bytes({{"rows", 4096}, {"cols", 4096}});
  for (uint64_t seed = 1; seed < 100; ++seed) {
    const auto g = generalization_size_sets(configured, {}, seed, matrix_bytes);
    EXPECT_GE(g.size(), 6u) << "a few sets per size name";
    EXPECT_LE(g.size(), kMaxGeneralizationSets);
    for (const auto& s : g) {
      EXPECT_LE(matrix_bytes(s.values), 2 * largest) << s.label();
      EXPECT_TRUE(std::none_of(configured.begin(), configured.end(), [&](const SizeSet& c) {
        return c.values == s.values;
      })) << s.label();
      // Not all at configured values: the name not targeted is drawn too.
      const bool rows_configured = s.values.at("rows") == 4096 || s.values.at("rows") == 1024;
      const bool cols_configured = s.values.at("cols") == 4096 || s.values.at("cols") == 2048;
      EXPECT_FALSE(rows_configured && cols_configured) << s.label();
    }
    bool beyond_rows = false, beyond_cols = false;
    for (const auto& s : g) {
      beyond_rows = beyond_rows || s.values.at("rows") > 4096;
      beyond_cols = beyond_cols || s.values.at("cols") > 4096;
    }
    EXPECT_TRUE(beyond_rows && beyond_cols) << "each name beyond its largest once (seed " << seed << ")";
  }
}

TEST(GeneralizationSizes, SetsTheSpecCannotDescribeAreNotDrawn) {
  // bytes() throws where the spec's expressions fail (here: n below 100).
  auto bytes = [](const Values& v) {
    if (v.at("n") < 100) throw config::ExpressionError("count n - 100 is negative");
    return saxpy_bytes(v);
  };
  for (const auto& s : generalization_size_sets(sets({{{"n", 4096}}}), {}, 5, bytes)) EXPECT_GE(s.values.at("n"), 100);
}

TEST(GeneralizationSizes, PrimesAreFound) {
  EXPECT_TRUE(is_prime(2));
  EXPECT_TRUE(is_prime(1000003));
  EXPECT_FALSE(is_prime(1));
  EXPECT_FALSE(is_prime(1000001));  // 101 * 9901
  EXPECT_FALSE(is_prime(25));
}

const char* kConfig = R"toml(
[verify]
seed = 42

[[kernel]]
name = "saxpy"
source = "src/saxpy.cu"
launcher = "launch_saxpy"
sizes = [{ n = 4096 }, { n = 65536 }]
size_rules = { n = { min = 16 } }
flops = "2*n"
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "idx"
  role = "input"
  dtype = "int32"
  count = "n"
  range = [0, "n"]
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)toml";

config::Config load() {
  static const std::filesystem::path root = [] {
    auto r = std::filesystem::temp_directory_path() / ("kb-gensizes-" + std::to_string(getpid()));
    std::filesystem::create_directories(r / "src");
    std::ofstream(r / "src" / "saxpy.cu") << "// saxpy\n";
    return r;
  }();
  return config::load_config_text(kConfig, "kernelbot.toml", root);
}

TEST(GeneralizationSizes, AppendedToAFullJobAsVerificationOnlySets) {
  const auto config = load();
  HarnessJob job = make_harness_job(config, config.kernels[0]);
  add_generalization_sizes(job, config, config.kernels[0]);
  ASSERT_GT(job.verify_only_sizes, 0);
  const size_t all = job.size_labels.size();
  EXPECT_EQ(all, 2u + static_cast<size_t>(job.verify_only_sizes));
  EXPECT_EQ(job.size_labels[0], "n=4096");
  EXPECT_EQ(job.size_labels[1], "n=65536");
  ASSERT_EQ(job.flops.size(), all);
  ASSERT_EQ(job.bytes.size(), all);
  for (const auto& a : job.args) {
    if (a.role == ArgRole::size) ASSERT_EQ(a.values.size(), all);
    else ASSERT_EQ(a.counts.size(), all);
  }
  for (size_t s = 2; s < all; ++s) {
    const int64_t n = job.args[0].counts[s];
    EXPECT_EQ(job.size_labels[s], "n=" + std::to_string(n));
    EXPECT_GE(n, 16) << "the rule's min";
    EXPECT_EQ(job.args[1].ranges[s], (std::vector<int64_t>{0, n})) << "ranges evaluated for the set";
    EXPECT_EQ(job.args[3].values[s], std::to_string(n));
    EXPECT_EQ(job.flops[s], 2.0 * static_cast<double>(n));
  }
  EXPECT_EQ(job.args[0].counts[2], 16) << "the smallest allowed";

  // The job's JSON carries the count; a reader gets it back.
  const nlohmann::json j = job;
  EXPECT_EQ(j.at("verify_only_sizes"), job.verify_only_sizes);
  EXPECT_EQ(j.get<HarnessJob>().verify_only_sizes, job.verify_only_sizes);
  HarnessJob old = nlohmann::json::parse(R"({"kernel": "k"})").get<HarnessJob>();
  EXPECT_EQ(old.verify_only_sizes, 0) << "absent: every set is configured";
}

TEST(GeneralizationSizes, NoSetOverflowsAnIntegerSizeArgument) {
  auto config = load();
  config.kernels[0].size_rules.clear();
  config.kernels[0].sizes = {{{{"n", 1500000000}}}};
  for (int i = 0; i < 20; ++i) {
    HarnessJob job = make_harness_job(config, config.kernels[0]);
    job.seed = static_cast<uint64_t>(i + 1);
    add_generalization_sizes(job, config, config.kernels[0]);
    for (const auto& v : job.args[3].values) EXPECT_LE(std::stoll(v), 2147483647LL) << "n is an int32";
  }
}

TEST(GeneralizationSizes, SanitizerJobsUseOnlyConfiguredSets) {
  const auto config = load();
  HarnessJob job = make_harness_job(config, config.kernels[0]);
  add_generalization_sizes(job, config, config.kernels[0]);
  // The smallest set is a generalization set (n = 16) and so is the largest (beyond n=65536), but
  // the sanitizer's sets are configured ones.
  EXPECT_EQ(profiler::smallest_size_index(job), 0u);
  EXPECT_EQ(profiler::largest_size_index(job), 1u);
  const HarnessJob sanitized = profiler::sanitizer_job(job);
  EXPECT_EQ(sanitized.size_labels, (std::vector<std::string>{"n=4096", "n=65536"}));
  EXPECT_EQ(sanitized.verify_only_sizes, 0);
}

}  // namespace
}  // namespace kb
