// From the builtin tuner's literal-knob winner to the PR: the search (simulated GPU) tunes a
// literal block size or a constexpr local, the splicer's patch touches only the lines with the
// changed literals and its edit list names them; a probe of a caller-chosen block size is an
// advisory line of the run summary and never a PR.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "bot/change/source_splicer.h"
#include "bot/job/main_job.h"
#include "search/builtin/builtin_proposer.h"
#include "search/engine/search_engine.h"
#include "search/types/advisory_findings.h"
#include "tests/search/legacy_block_source.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using kb::testing::SimBehaviour;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

double block_cost(double block) { return 25 + 600 / block + std::abs(std::log2(block / 256)) * 2; }

double number_after(const std::string& source, const std::string& pattern, double fallback) {
  std::smatch m;
  if (std::regex_search(source, m, std::regex(pattern))) return std::stod(m[1]);
  return fallback;
}

// The removed and added lines of a unified diff, without the file headers.
std::vector<std::string> changed_lines(const std::string& patch) {
  std::vector<std::string> out;
  std::istringstream in(patch);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("---", 0) == 0 || line.rfind("+++", 0) == 0) continue;
    if (!line.empty() && (line[0] == '-' || line[0] == '+')) out.push_back(line);
  }
  return out;
}

search::SearchResult tune(TestProject& p, std::function<double(const Variant&)> time_us) {
  p.config.search.rounds = 5;
  SimulatedEvaluator e([time_us](const Variant& v) {
    SimBehaviour b;
    b.time_us = time_us(v);
    return b;
  });
  search::BuiltinProposer proposer(p.config, p.spec());
  search::SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  return search::run_search(req);
}

}  // namespace

TEST(LiteralTuningPr, ALiteralBlockSizeWinnerChangesOnlyTheLinesWithTheLiteral) {
  const std::string original = R"(#include <cuda_bf16.h>

// y = gelu(x), one thread per element
__global__ void gelu_kernel(const __nv_bfloat16* x, __nv_bfloat16* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void launch_k(float* y, int n) {
  const __nv_bfloat16* x = nullptr;
  int grid = (n + 31) / 32;
  gelu_kernel<<<grid, 32, 0, 0>>>(x, reinterpret_cast<__nv_bfloat16*>(y), n);
}
)";
  TestProject p(original);
  auto result = tune(p, [](const Variant& v) {
    // Launch bounds cost a little here, so the winner is the block size alone.
    return block_cost(number_after(v.source, R"(<<<grid, (\d+),)", 32)) +
           (v.source.find("__launch_bounds__") != std::string::npos ? 0.5 : 0);
  });
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->variant.label, "launch_k block=256");

  auto change = bot::make_source_change("src/gelu.cu", result.original_source(), p.spec().launcher,
                                        result.best()->variant);
  EXPECT_EQ(change.edits, std::vector<std::string>{"block size literal in launch_k: 32 -> 256"});
  EXPECT_TRUE(change.notes.empty());
  EXPECT_EQ(changed_lines(change.patch), (std::vector<std::string>{"-  int grid = (n + 31) / 32;",
                                                                   "-  gelu_kernel<<<grid, 32, 0, 0>>>(x, "
                                                                   "reinterpret_cast<__nv_bfloat16*>(y), n);",
                                                                   "+  int grid = (n + 255) / 256;",
                                                                   "+  gelu_kernel<<<grid, 256, 0, 0>>>(x, "
                                                                   "reinterpret_cast<__nv_bfloat16*>(y), n);"}))
      << change.patch;
}

TEST(LiteralTuningPr, AConstexprBlockSizeWinnerChangesOneLine) {
  const std::string original = R"(template <typename T, int THREADS>
__global__ void row_kernel(T* y, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n) y[i] = y[i] * 2;
}

void launch_k(float* y, int n) {
  constexpr int threads = 32;  // one warp per block
  row_kernel<float, threads><<<(n + threads - 1) / threads, threads>>>(y, n);
}
)";
  TestProject p(original);
  auto result = tune(p, [](const Variant& v) {
    return block_cost(number_after(v.source, R"(constexpr int threads = (\d+);)", 32));
  });
  ASSERT_NE(result.best(), nullptr);
  auto change = bot::make_source_change("src/rows.cu", result.original_source(), p.spec().launcher,
                                        result.best()->variant);
  EXPECT_EQ(change.edits, std::vector<std::string>{"`threads` in launch_k: 32 -> 256"});
  EXPECT_EQ(changed_lines(change.patch),
            (std::vector<std::string>{"-  constexpr int threads = 32;  // one warp per block",
                                      "+  constexpr int threads = 256;  // one warp per block"}));
}

TEST(LiteralTuningPr, ACallerChosenBlockSizeIsAnAdvisoryLineAndNeverAPr) {
  const std::string original = R"(__global__ void gather_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[n - 1 - i];
}

void launch_k(float* y, int n, int threads) {
  gather_kernel<<<(n + threads - 1) / threads, threads>>>(y, n);
}
)";
  TestProject p(original);
  config::ArgSpec threads;
  threads.name = "threads";
  threads.role = ArgRole::scalar;
  threads.dtype = DType::int32;
  threads.value = "64";
  p.spec().args.push_back(threads);
  auto result = tune(p, [](const Variant& v) {
    return block_cost(number_after(v.source, R"(threads = (\d+);  // kernelbot: advisory probe)", 64));
  });
  EXPECT_EQ(result.best(), nullptr);
  ASSERT_EQ(result.advisories.size(), 1u);

  // The run summary's row: no PR, the advisory in words.
  auto row = bot::published_outcome("k", result, bot::PublishOutcome{}, true);
  EXPECT_EQ(row.verdict, "no faster kernel");
  ASSERT_EQ(row.advisories.size(), 1u);
  EXPECT_EQ(row.advisories[0].rfind("advisory: launch_k's caller-chosen `threads` (64 in this config) measured ", 0), 0u)
      << row.advisories[0];
  EXPECT_NE(row.advisories[0].find("x faster at 256 (verified); change it at the call sites"), std::string::npos);

  // Even handed to the splicer directly, a probe is refused.
  const search::CandidateRecord* probe = result.find(result.advisories[0].candidate_id);
  ASSERT_NE(probe, nullptr);
  EXPECT_THROW(bot::make_source_change("src/gather.cu", original, "launch_k", probe->variant), std::runtime_error);
}

TEST(LiteralTuningPr, ALegacyBlockDefineWinnerChangesOnlyTheDefineLine) {
  const std::string original = kb::testing::kLegacyBlockDefineSource;
  TestProject p(original);
  auto result = tune(p, [](const Variant& v) {
    return block_cost(number_after(v.source, R"(#define SAXPY_BLOCK (\d+))", 128)) +
           (v.source.find("__launch_bounds__") != std::string::npos ? 0.5 : 0);
  });
  ASSERT_NE(result.best(), nullptr);
  auto change = bot::make_source_change("src/legacy_saxpy.cu", result.original_source(), p.spec().launcher,
                                        result.best()->variant);
  EXPECT_TRUE(change.notes.empty());
  EXPECT_EQ(changed_lines(change.patch),
            (std::vector<std::string>{"-#define SAXPY_BLOCK 128", "+#define SAXPY_BLOCK 256"}))
      << change.patch;
  ASSERT_EQ(change.edits.size(), 1u) << ::testing::PrintToString(change.edits);
  EXPECT_NE(change.edits[0].find("SAXPY_BLOCK"), std::string::npos) << change.edits[0];
  EXPECT_NE(change.edits[0].find("128 -> 256"), std::string::npos) << change.edits[0];
}
