// The builtin tuner on sources without macros: the tuning space's literal knobs (a point's
// variant is the source with those literals replaced), advisory probes of a caller-chosen block
// size (measured and reported, never the winner), register caps, and whole searches against
// simulated costs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>

#include "search/builtin/builtin_proposer.h"
#include "search/builtin/tuning_space.h"
#include "search/engine/search_engine.h"
#include "search/types/advisory_findings.h"
#include "search/types/search_tree.h"
#include "tests/search/legacy_block_source.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::SimBehaviour;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

const std::string kLiteralBlock = R"(__global__ void gelu_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 0.5f;
}

void launch_k(float* y, int n) {
  int grid = (n + 31) / 32;
  gelu_kernel<<<grid, 32, 0, 0>>>(y, n);
}
)";

const std::string kConstexprBlock = R"(template <typename T, int THREADS>
__global__ void row_kernel(T* y, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n) y[i] = y[i] * 2;
}

void launch_k(float* y, int n) {
  constexpr int threads = 32;
  row_kernel<float, threads><<<(n + threads - 1) / threads, threads>>>(y, n);
}
)";

const std::string kArgumentBlock = R"(__global__ void gather_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[n - 1 - i];
}

void launch_k(float* y, int n, int threads) {
  gather_kernel<<<(n + threads - 1) / threads, threads>>>(y, n);
}
)";

// saxpy-like costs: tiny blocks are slow, 256 is best.
double block_cost(double block) { return 25 + 600 / block + std::abs(std::log2(block / 256)) * 2; }

double number_after(const std::string& source, const std::string& pattern, double fallback) {
  std::smatch m;
  if (std::regex_search(source, m, std::regex(pattern))) return std::stod(m[1]);
  return fallback;
}

void add_threads_arg(TestProject& p, const std::string& value) {
  config::ArgSpec threads;
  threads.name = "threads";
  threads.role = ArgRole::scalar;
  threads.dtype = DType::int32;
  threads.value = value;
  p.spec().args.push_back(threads);
}

}  // namespace

TEST(LiteralTuningSpace, ALiteralBlockSizeIsADimensionWithLaunchBoundsOfTheEditedSource) {
  TestProject p(kLiteralBlock);
  auto space = TuningSpace::build(Variant{kLiteralBlock, {}, {}, ""}, p.spec(), {});
  ASSERT_EQ(space.dimensions().size(), 2u);
  const auto& block = space.dimensions()[0];
  EXPECT_EQ(block.kind, TuningDimension::Kind::literal);
  EXPECT_EQ(block.role, cuda_source::MacroRole::block_size);
  EXPECT_EQ(block.values, (std::vector<std::string>{"32", "64", "128", "256", "512", "1024"}));
  EXPECT_EQ(block.display, "block size of launch_k's launch (the literal 32 at k.cu:8)");
  EXPECT_EQ(space.dimensions()[1].kind, TuningDimension::Kind::launch_bounds);
  EXPECT_EQ(space.size(), 12u);

  TuningPoint p256{3, 1};
  Variant v = space.variant(p256);
  EXPECT_TRUE(v.defines.empty());
  EXPECT_NE(v.source.find("int grid = (n + 255) / 256;"), std::string::npos) << v.source;
  EXPECT_NE(v.source.find("gelu_kernel<<<grid, 256, 0, 0>>>"), std::string::npos);
  EXPECT_NE(v.source.find("__launch_bounds__(256)"), std::string::npos) << v.source;  // the edited block, not 32
  EXPECT_EQ(v.label, "launch_k block=256, __launch_bounds__");
  EXPECT_FALSE(space.advisory(p256));
  EXPECT_EQ(space.point_of(v), p256);
  EXPECT_EQ(space.variant(space.default_point()).source, kLiteralBlock);
  EXPECT_EQ(space.point_of(Variant{kLiteralBlock, {}, {}, ""}), space.default_point());
  EXPECT_FALSE(space.point_of(Variant{kLiteralBlock + "// other\n", {}, {}, ""}).has_value());
}

TEST(LiteralTuningSpace, Dim3ShapesAreValidOnlyBetweenThirtyTwoAndTenTwentyFourThreads) {
  const std::string source = R"(__global__ void rows_kernel(float* y, int rows, int cols) { y[0] = rows + cols; }
void launch_k(float* y, int n) {
  int rows = n / 64, cols = 64;
  dim3 block(1, 256);
  dim3 grid(cols, (rows + 255) / 256);
  rows_kernel<<<grid, block>>>(y, rows, cols);
}
)";
  TestProject p(source);
  auto space = TuningSpace::build(Variant{source, {}, {}, ""}, p.spec(), {false, false, true});
  ASSERT_EQ(space.dimensions().size(), 2u);
  const auto& x = space.dimensions()[0];
  const auto& y = space.dimensions()[1];
  EXPECT_EQ(x.role, cuda_source::MacroRole::block_dimension);
  EXPECT_EQ(x.group, y.group);
  size_t valid = 0;
  for (const auto& pt : space.enumerate(1000)) {
    int64_t shape = std::stoll(x.values[pt[0]]) * std::stoll(y.values[pt[1]]);
    EXPECT_TRUE(shape >= 32 && shape <= 1024) << shape;
    ++valid;
  }
  EXPECT_GT(valid, 10u);
  // 32 x 8: the grid's x extent is divided by the new block width.
  TuningPoint p32x8{5, 3};
  ASSERT_EQ(x.values[5], "32");
  ASSERT_EQ(y.values[3], "8");
  Variant v = space.variant(p32x8);
  EXPECT_NE(v.source.find("dim3 block(32, 8);"), std::string::npos) << v.source;
  EXPECT_NE(v.source.find("dim3 grid(((cols) + 32 - 1) / 32, (rows + 7) / 8);"), std::string::npos) << v.source;
}

TEST(LiteralTuningSpace, RegisterCapsForARegisterHeavyKernel) {
  TestProject p(kConstexprBlock);
  TuningSpaceOptions options;
  options.registers = 100;
  auto space = TuningSpace::build(Variant{kConstexprBlock, {}, {}, ""}, p.spec(), options);
  ASSERT_EQ(space.dimensions().size(), 2u);  // threads, register cap
  const auto& caps = space.dimensions()[1];
  EXPECT_EQ(caps.name, kRegisterCapDimension);
  EXPECT_EQ(caps.values, (std::vector<std::string>{"", "-maxrregcount=64", "-maxrregcount=32"}));
  Variant v = space.variant({0, 1});
  EXPECT_EQ(v.nvcc_flags, std::vector<std::string>{"-maxrregcount=64"});
  EXPECT_EQ(space.point_of(v), (TuningPoint{0, 1}));
  options.registers = 40;
  EXPECT_EQ(TuningSpace::build(Variant{kConstexprBlock, {}, {}, ""}, p.spec(), options).dimensions().size(), 1u);
}

TEST(LiteralTuningSearch, ConstexprBlockSizeIsTunedToTheSimulatedBest) {
  TestProject p(kConstexprBlock);
  p.config.search.rounds = 5;
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    b.time_us = block_cost(number_after(v.source, R"(constexpr int threads = (\d+);)", 32));
    return b;
  });
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_NE(result.best()->variant.source.find("constexpr int threads = 256;"), std::string::npos);
  EXPECT_EQ(result.best()->variant.label, "threads=256");
  EXPECT_TRUE(result.advisories.empty());
  // The rules rank 256 first and the idea says what is changed, and where.
  const auto& first = result.tree[1];
  EXPECT_EQ(first.variant.label, "threads=256");
  EXPECT_NE(first.idea.text.find("block size `threads` of launch_k (`constexpr int threads = 32` at k.cu:8)"),
            std::string::npos)
      << first.idea.text;
  EXPECT_NE(first.idea.rationale.find("32-thread blocks"), std::string::npos) << first.idea.rationale;
  EXPECT_EQ(result.stop_reason, "search space exhausted: all 6 points tried");
}

TEST(LiteralTuningSearch, ALegacyBlockDefineIsTunedByEditingItsLine) {
  // The compat-prelude fixture's launcher: `#define SAXPY_BLOCK 128`, no #ifndef guard.
  const std::string source = kb::testing::kLegacyBlockDefineSource;
  TestProject p(source);
  p.config.search.rounds = 5;
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    b.time_us = block_cost(number_after(v.source, R"(#define SAXPY_BLOCK (\d+))", 128));
    return b;
  });
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr) << result.stop_reason;
  EXPECT_NE(result.best()->variant.source.find("#define SAXPY_BLOCK 256\n"), std::string::npos)
      << result.best()->variant.source;
  EXPECT_TRUE(result.best()->variant.defines.empty());  // an edit of the line, not a -D it would ignore
  EXPECT_NE(result.tree[1].idea.text.find("block size `SAXPY_BLOCK` of launch_k"), std::string::npos)
      << result.tree[1].idea.text;
}

TEST(LiteralTuningSearch, ACallerChosenBlockSizeYieldsAnAdvisoryFindingAndNoWinner) {
  TestProject p(kArgumentBlock);
  add_threads_arg(p, "64");
  p.config.search.rounds = 5;
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    b.time_us = block_cost(number_after(v.source, R"(threads = (\d+);  // kernelbot: advisory probe)", 64));
    return b;
  });
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  // Every probe was measured; the fastest is faster, yet nothing is a winner.
  size_t accepted = 0;
  for (const auto& c : result.tree)
    if (c.verdict() == Verdict::accepted) {
      ++accepted;
      EXPECT_TRUE(is_advisory(c.variant)) << c.id;
      EXPECT_NE(c.idea.text.find("advisory"), std::string::npos) << c.idea.text;
    }
  EXPECT_GE(accepted, 3u);
  EXPECT_EQ(result.best(), nullptr);
  EXPECT_TRUE(result.best_id.empty());
  ASSERT_EQ(result.advisories.size(), 1u);
  const auto& finding = result.advisories[0];
  EXPECT_EQ(finding.subject, "launch_k's caller-chosen `threads` (64 in this config)");
  EXPECT_EQ(finding.value, "256");
  EXPECT_NEAR(finding.speedup, block_cost(64) / block_cost(256), 1e-6);
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.3f", finding.speedup);  // under 2x: three decimals
  EXPECT_EQ(advisory_text(finding), std::string("advisory: launch_k's caller-chosen `threads` (64 in this config) "
                                                "measured ") +
                                        speedup + "x faster at 256 (verified); change it at the call sites");
  // Saved results carry the findings.
  auto back = nlohmann::json(result).get<SearchResult>();
  ASSERT_EQ(back.advisories.size(), 1u);
  EXPECT_EQ(back.advisories[0].value, "256");
}

TEST(LiteralTuningSearch, AnArgumentWithoutAnIntegerValueInTheConfigIsNotProbed) {
  TestProject p(kArgumentBlock);
  add_threads_arg(p, "");
  auto space = TuningSpace::build(Variant{kArgumentBlock, {}, {}, ""}, p.spec(), {});
  EXPECT_TRUE(space.empty());
}

TEST(LiteralTuningSearch, AnAdvisoryProbeIsNeverTheBestEvenWhenFastest) {
  TestProject p(kArgumentBlock);
  add_threads_arg(p, "64");
  auto space = TuningSpace::build(Variant{kArgumentBlock, {}, {}, ""}, p.spec(), {});
  ASSERT_EQ(space.dimensions().size(), 1u);
  TuningPoint probe{3};
  ASSERT_EQ(space.dimensions()[0].values[3], "256");
  EXPECT_TRUE(space.advisory(probe));
  std::vector<CandidateRecord> tree(3);
  // Both publishable wins (accepted, verified, significantly faster at the one size): only the
  // probe's being advisory keeps it from being the best.
  for (auto& c : tree) {
    c.eval.verdict = Verdict::accepted;
    c.eval.verification.passed = true;
    SizeTiming t;
    t.significant = true;
    c.eval.timings = {t};
  }
  tree[0].id = "baseline";
  tree[1].id = "probe";
  tree[1].eval.speedup = 3;
  tree[1].eval.timings[0].speedup = 3;
  tree[1].variant = space.variant(probe);
  tree[2].id = "plain";
  tree[2].eval.speedup = 1.2;
  tree[2].eval.timings[0].speedup = 1.2;
  tree[2].variant = Variant{kArgumentBlock + "// faster\n", {}, {}, "plain"};
  ASSERT_NE(best_accepted(tree), nullptr);
  EXPECT_EQ(best_accepted(tree)->id, "plain");
  auto findings = collect_advisory_findings(tree);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].candidate_id, "probe");
}
