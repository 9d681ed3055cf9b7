// The builtin tuner: knob detection, the launch-bounds transform, the space and its
// enumeration, the tolerance rule for fast math, and whole searches against simulated costs.
#include "search/builtin/builtin_proposer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "config/config_loader.h"
#include "cuda_source/knobs/launch_bounds.h"
#include "cuda_source/knobs/tunable_macros.h"
#include "search/builtin/tuning_space.h"
#include "search/engine/search_engine.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using namespace kb::cuda_source;
using kb::testing::define_value;
using kb::testing::SimBehaviour;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kSaxpy = read_file(KB_SOURCE_DIR "/examples/src/saxpy.cu");
const std::string kTranspose = read_file(KB_SOURCE_DIR "/examples/src/transpose.cu");

// The examples' kernels with the default search and bench settings: the examples' own file keeps
// a short budget for the demo, which these tests must not depend on.
config::Config examples_config() {
  config::Config config = config::load_config(KB_SOURCE_DIR "/examples/kernelbot.toml");
  config.search = config::SearchConfig{};
  config.bench = config::BenchConfig{};
  return config;
}

}  // namespace

TEST(TunableMacros, FindsIfndefDefineBlocksAndTheirRoles) {
  auto saxpy = detect_tunable_macros(kSaxpy);
  ASSERT_EQ(saxpy.size(), 1u);
  EXPECT_EQ(saxpy[0].name, "SAXPY_BLOCK");
  EXPECT_EQ(saxpy[0].default_value, 32);
  EXPECT_EQ(saxpy[0].role, MacroRole::block_size);
  EXPECT_EQ(sweep_values(saxpy[0]), (std::vector<std::string>{"32", "64", "128", "256", "512", "1024"}));

  auto transpose = detect_tunable_macros(kTranspose);
  ASSERT_EQ(transpose.size(), 2u);
  EXPECT_EQ(transpose[0].role, MacroRole::block_dimension);
  EXPECT_EQ(transpose[1].role, MacroRole::block_dimension);
  EXPECT_EQ(sweep_values(transpose[1]).front(), "1");
  EXPECT_EQ(sweep_values(transpose[1]).back(), "1024");
}

TEST(TunableMacros, ReadsDeclarationsAndIgnoresWhatIsNotAKnob) {
  const std::string src = "#define FIXED 7\n"                                   // no #ifndef guard: not overridable
                          "#ifndef NAME_STR\n#define NAME_STR \"x\"\n#endif\n"  // not an integer
                          "#ifndef ITEMS_PER_THREAD\n#define ITEMS_PER_THREAD 1  // items\n#endif\n"
                          "#ifndef TILE\n#define TILE (64)\n#endif\n"
                          "#ifndef USE_X\n#define USE_X 0\n#endif\n"
                          "// kernelbot: tune TILE 32, 64, 128\n"
                          "// kernelbot: tune UNROLL = 1 2 4\n";
  auto m = detect_tunable_macros(src);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].name, "ITEMS_PER_THREAD");
  EXPECT_EQ(m[0].role, MacroRole::work_per_thread);
  EXPECT_EQ(sweep_values(m[0]), (std::vector<std::string>{"1", "2", "4", "8", "16"}));
  EXPECT_EQ(m[1].name, "TILE");
  EXPECT_EQ(m[1].default_value, 64);
  EXPECT_EQ(sweep_values(m[1]), (std::vector<std::string>{"32", "64", "128"}));
  EXPECT_EQ(m[2].name, "USE_X");
  EXPECT_EQ(sweep_values(m[2]), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(m[3].name, "UNROLL");
  EXPECT_FALSE(m[3].default_value.has_value());
  TunableMacro other{"K", 64, 1, MacroRole::other, {}};
  EXPECT_EQ(sweep_values(other), (std::vector<std::string>{"16", "32", "64", "128", "256"}));
}

TEST(LaunchBounds, AddsTheBlockSizeOfTheLaunchToTheKernel) {
  auto saxpy = add_launch_bounds(kSaxpy, "launch_saxpy");
  ASSERT_TRUE(saxpy.has_value());
  EXPECT_NE(saxpy->find("__global__ __launch_bounds__(SAXPY_BLOCK) void saxpy_kernel("), std::string::npos) << *saxpy;
  auto transpose = add_launch_bounds(kTranspose, "launch_transpose");
  ASSERT_TRUE(transpose.has_value());
  EXPECT_NE(transpose->find("__launch_bounds__((TRANSPOSE_BLOCK_X) * (TRANSPOSE_BLOCK_Y))"), std::string::npos);
  // Already bounded, or a block size computed at run time: nothing to do.
  EXPECT_FALSE(add_launch_bounds(*saxpy, "launch_saxpy").has_value());
  const std::string runtime =
      "__global__ void k(float* y) {}\nvoid launch_k(float* y, int n) { int t = n > 99 ? 256 : 64; k<<<1, t>>>(y); }\n";
  EXPECT_FALSE(add_launch_bounds(runtime, "launch_k").has_value());
  EXPECT_FALSE(add_launch_bounds(kSaxpy, "launch_other").has_value());
}

TEST(LaunchBounds, SplitsALaunchConfigurationAtItsTopLevelCommas) {
  EXPECT_EQ(split_top_level("dim3(n / 16, m / 16), dim3(16, 16), 0, stream"),
            (std::vector<std::string>{"dim3(n / 16, m / 16)", "dim3(16, 16)", "0", "stream"}));
  // An empty component in the middle stays; nothing after the last comma is no component.
  EXPECT_EQ(split_top_level(" a ,, b, "), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(split_top_level("").empty());
}

TEST(TuningSpace, SaxpySpaceIsBlockSizesTimesLaunchBounds) {
  auto config = examples_config();
  const auto& spec = *config.find_kernel("saxpy");
  auto space = TuningSpace::build(Variant{kSaxpy, {}, {}, ""}, spec, {});
  ASSERT_EQ(space.dimensions().size(), 2u);
  EXPECT_EQ(space.size(), 12u);
  EXPECT_EQ(space.enumerate(100).size(), 12u);
  auto def = space.default_point();
  Variant original = space.variant(def);
  EXPECT_TRUE(original.defines.empty());
  EXPECT_EQ(original.source, kSaxpy);
  TuningPoint p{3, 1};  // 256 threads, launch bounds on
  Variant v = space.variant(p);
  EXPECT_EQ(v.defines, std::vector<std::string>{"SAXPY_BLOCK=256"});
  EXPECT_NE(v.source.find("__launch_bounds__"), std::string::npos);
  EXPECT_EQ(v.label, "SAXPY_BLOCK=256, __launch_bounds__");
  EXPECT_EQ(space.point_of(v), p);
  EXPECT_EQ(space.point_of(original), def);
  EXPECT_FALSE(space.point_of(Variant{kSaxpy + "// changed\n", {}, {}, ""}).has_value());
  EXPECT_FALSE(space.point_of(Variant{kSaxpy, {"SAXPY_BLOCK=48"}, {}, ""}).has_value());
  EXPECT_EQ(space.neighbours(def).size(), 2u);  // 64 threads; launch bounds
}

TEST(TuningSpace, BlockShapesOutsideThirtyTwoToTenTwentyFourThreadsAreInvalid) {
  auto config = examples_config();
  const auto& spec = *config.find_kernel("transpose");
  auto space = TuningSpace::build(Variant{kTranspose, {}, {}, ""}, spec, {false, false, true});
  ASSERT_EQ(space.dimensions().size(), 2u);
  EXPECT_EQ(space.size(), 20u);  // X in {8,16,32,64}, Y in {1,2,4,8,16}
  for (const auto& p : space.enumerate(100)) {
    int64_t x = std::stoll(space.dimensions()[0].values[p[0]]), y = std::stoll(space.dimensions()[1].values[p[1]]);
    EXPECT_TRUE((x * y >= 32 && x * y <= 1024) || p == space.default_point()) << x << "x" << y;
  }
  EXPECT_EQ(space.enumerate(100).size(), 17u);  // 8x1, 8x2, 16x1 are too small
}

TEST(BuiltinRules, FastMathOnlyWhenEveryFloatOutputToleratesIt) {
  TestProject p;
  EXPECT_FALSE(fast_math_allowed(p.config, p.spec()));  // float32 default rtol 1e-4
  p.spec().tolerance["float32"] = {1e-3, 1e-5};
  EXPECT_TRUE(fast_math_allowed(p.config, p.spec()));
  config::ArgSpec d;
  d.name = "d";
  d.role = ArgRole::output;
  d.dtype = DType::float64;
  p.spec().args.push_back(d);
  EXPECT_FALSE(fast_math_allowed(p.config, p.spec()));
  p.spec().tolerance["float64"] = {1e-2, 1e-5};
  EXPECT_TRUE(fast_math_allowed(p.config, p.spec()));
}

TEST(BuiltinProposer, FindsTheBestBlockSizeOfSaxpyExhaustively) {
  auto config = examples_config();
  config.search.rounds = 5;
  config.search.min_round_gain = 0;
  const auto& spec = *config.find_kernel("saxpy");
  // A cost shaped like saxpy's on a GPU: tiny blocks are slow, 256 is best, bounds help a little.
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    double block = std::stod(define_value(v, "SAXPY_BLOCK").value_or("32"));
    b.time_us = 25 + 600 / block + std::abs(std::log2(block / 256)) * 2;
    if (v.source.find("__launch_bounds__") != std::string::npos) b.time_us -= 0.5;
    return b;
  });
  BuiltinProposer proposer(config, spec);
  SearchRequest req{&config, &spec, &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->variant.defines, std::vector<std::string>{"SAXPY_BLOCK=256"});
  EXPECT_NE(result.best()->variant.source.find("__launch_bounds__"), std::string::npos);
  EXPECT_GT(result.best()->speedup(), 1.5);
  // The idea text of every step says what its variant is (seen on the H100: a step from a seed
  // that already had launch bounds was labelled "Add" while it removed them).
  for (const auto& c : result.tree) {
    bool has_bounds = c.variant.source.find("__launch_bounds__") != std::string::npos;
    if (c.idea.text.rfind("Add __launch_bounds__", 0) == 0) {
      EXPECT_TRUE(has_bounds) << c.id;
    }
    if (c.idea.text.rfind("Remove __launch_bounds__", 0) == 0) {
      EXPECT_FALSE(has_bounds) << c.id;
    }
  }
  // Every point once, the original excluded, then the space is spent.
  EXPECT_EQ(result.budget.candidates, 11);
  EXPECT_EQ(result.stop_reason, "search space exhausted: all 12 points tried");
  // Rules first: the first idea changes the block size, starting at 256.
  const auto& first = result.tree[1];
  EXPECT_EQ(first.variant.defines, std::vector<std::string>{"SAXPY_BLOCK=256"});
  EXPECT_EQ(first.idea.family, "parallelism");
  EXPECT_NE(first.idea.text.find("SAXPY_BLOCK"), std::string::npos);
  EXPECT_NE(first.idea.rationale.find("32-thread blocks"), std::string::npos) << first.idea.rationale;
  for (const auto& c : result.tree) EXPECT_TRUE(c.variant.nvcc_flags.empty());  // rtol 1e-4: no fast math
}

TEST(BuiltinProposer, TriesFastMathWhenTheToleranceAllows) {
  auto config = examples_config();
  config.search.min_round_gain = 0;
  auto spec = *config.find_kernel("saxpy");
  spec.tolerance["float32"] = {1e-3, 1e-5};
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    b.time_us = v.nvcc_flags.empty() ? 100 : 80;
    return b;
  });
  BuiltinProposer proposer(config, spec);
  SearchRequest req{&config, &spec, &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->variant.nvcc_flags, std::vector<std::string>{"--use_fast_math"});
  EXPECT_EQ(result.budget.candidates, 23);  // 6 x 2 x 2 points, the original excluded
}

TEST(BuiltinProposer, LocalSearchAndRestartsFindTheOptimumOfALargeSpace) {
  // Four knobs of 5 values (625 points) and 80 candidates: too many to enumerate.
  TestProject p("#ifndef KA\n#define KA 64\n#endif\n#ifndef KB\n#define KB 64\n#endif\n"
                "#ifndef KC\n#define KC 64\n#endif\n#ifndef KD\n#define KD 64\n#endif\n"
                "void launch_k(float* y, int n) {}\n");
  p.config.search.rounds = 20;
  p.config.search.ideas_per_round = 4;
  p.config.search.branches_per_idea = 3;
  p.config.search.max_candidates = 80;
  p.config.search.min_round_gain = 0;
  const double target[] = {5, 7, 6, 8};  // log2 of 32, 128, 64, 256
  SimulatedEvaluator e([&](const Variant& v) {
    SimBehaviour b;
    b.time_us = 10;
    const char* names[] = {"KA", "KB", "KC", "KD"};
    for (int i = 0; i < 4; ++i) {
      double x = std::log2(std::stod(define_value(v, names[i]).value_or("64")));
      b.time_us += 3 * (x - target[i]) * (x - target[i]);
    }
    return b;
  });
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_NEAR(result.best()->eval.timings[0].candidate.median_us, 10.0, 1e-9) << result.best()->variant.label;
  EXPECT_LE(result.budget.candidates, 80);
  bool restarted = false;
  for (const auto& c : result.tree) restarted = restarted || c.idea.text.rfind("Random restart", 0) == 0;
  EXPECT_TRUE(restarted);
}

TEST(BuiltinProposer, SaysSoWhenThereIsNothingToTune) {
  // (A grid of 256 literal blocks: the block literal cannot be tuned apart from it.)
  TestProject p("__global__ void k(float* y) {}\nvoid launch_k(float* y, int n) { k<<<256, 256>>>(y); }\n");
  SimulatedEvaluator e;
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  // The launch has a constant block size, so __launch_bounds__ is the one thing to try.
  EXPECT_EQ(result.budget.candidates, 1);
  TestProject q("void launch_k(float* y, int n) {}\n");
  BuiltinProposer nothing(q.config, q.spec());
  SearchRequest req2{&q.config, &q.spec(), &e, {}, &nothing, nullptr, {}};
  auto none = run_search(req2);
  EXPECT_EQ(none.stop_reason.rfind("nothing to tune", 0), 0u) << none.stop_reason;
}

namespace {

// A SimulatedEvaluator that takes its time measuring the original, as a GPU does, and records
// every variant compiled before and during that measurement. The measurement lasts until four
// compiles have started during it, or 10 s: a fixed 400 ms failed under ThreadSanitizer on a busy
// machine, where the search takes longer to get its compiles going.
class SlowOriginalEvaluator : public SimulatedEvaluator {
 public:
  using SimulatedEvaluator::SimulatedEvaluator;
  CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant) override {
    {
      std::lock_guard lock(mutex_);
      compiled_.insert(key(variant));
      if (measuring_) ++during_measurement_;
    }
    compiled_during_.notify_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // nvcc is not instant either
    return SimulatedEvaluator::compile(spec, variant);
  }
  EvalResult evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                      const EvalOptions& options) override {
    const bool original = baseline.library_path == candidate.library_path;
    if (original) {
      std::unique_lock lock(mutex_);
      measuring_ = true;
      compiled_during_.wait_for(lock, std::chrono::seconds(10), [this] { return during_measurement_ >= 4; });
    }
    EvalResult r = SimulatedEvaluator::evaluate(spec, baseline, candidate, options);
    std::lock_guard lock(mutex_);
    measuring_ = false;
    return r;
  }
  static std::string key(const Variant& v) {
    std::string k = v.source;
    for (const auto& d : v.defines) k += "\n-D" + d;
    for (const auto& f : v.nvcc_flags) k += "\n" + f;
    return k;
  }
  std::set<std::string> compiled() {
    std::lock_guard lock(mutex_);
    return compiled_;
  }
  int during_measurement() {
    std::lock_guard lock(mutex_);
    return during_measurement_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable compiled_during_;
  std::set<std::string> compiled_;
  bool measuring_ = false;
  int during_measurement_ = 0;
};

}  // namespace

// While the GPU measures the original, the CPU compiles what round 1 will ask for: the tuner's
// single-knob neighbours of the original, best-ranked first (issue #13: compile while the GPU
// measures). Round 1's local moves are all among them; only its random restart may not be.
TEST(BuiltinProposer, RoundOnesCandidatesAreCompiledWhileTheOriginalIsMeasured) {
  auto config = examples_config();
  config.search.rounds = 1;
  config.search.max_candidates = 10;  // transpose's 40 points do not fit: local search and a restart
  config.search.compile_jobs = 4;
  const auto& spec = *config.find_kernel("transpose");
  SlowOriginalEvaluator e;
  BuiltinProposer proposer(config, spec);

  ProposalContext early;
  early.config = &config;
  early.spec = &spec;
  early.original_source = kTranspose;
  const std::vector<Variant> likely = proposer.likely_variants(early, 8);
  ASSERT_EQ(likely.size(), 8u);
  EXPECT_EQ(likely.front().defines.size() + (likely.front().source != kTranspose), 1u)
      << "one knob changed first: " << likely.front().label;

  SearchRequest req{&config, &spec, &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  EXPECT_GE(e.during_measurement(), 4) << "compiles ran while the original was measured";
  std::set<std::string> ahead;
  for (const auto& v : BuiltinProposer(config, spec).likely_variants(early, 8))
    ahead.insert(SlowOriginalEvaluator::key(v));
  int local_moves = 0;
  for (const auto& c : result.tree) {
    if (c.round != 1 || c.idea.text.rfind("Random restart", 0) == 0) continue;
    ++local_moves;
    EXPECT_TRUE(ahead.count(SlowOriginalEvaluator::key(c.variant))) << c.id << " " << c.variant.label;
  }
  EXPECT_GT(local_moves, 0);
}
