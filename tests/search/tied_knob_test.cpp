// The builtin tuner's tied knobs: a kernel's literal template argument and the block written with
// it (`gemm<8><<<grid, dim3(8, 8)>>>`, `k<32><<<grid, 32 * 32>>>`), or a file-scope #define the
// block is written with (`dim3(TILE, TILE)`), change as one knob with the grid that divides by
// them; and a value that breaks the kernel (a wrong result) is learnt and not proposed again.
#include <gtest/gtest.h>

#include <regex>

#include "search/builtin/builtin_proposer.h"
#include "search/builtin/tuning_space.h"
#include "search/engine/search_engine.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::SimBehaviour;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

const std::string kDim3Tile = R"(template <int TILE>
__global__ void gemm(float* y, int n) {
  __shared__ float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = y[threadIdx.x];
  #pragma unroll 4
  for (int k = 0; k < TILE; ++k) y[k] = tile[k][threadIdx.x];
}

void launch_k(float* y, int n) {
  dim3 grid((n + 7) / 8, (n + 7) / 8);
  gemm<8><<<grid, dim3(8, 8)>>>(y, n);
}
)";

const std::string kSquaredTile = R"(template <int BS>
__global__ void sgemm_tiled(float* y, int n) {
  __shared__ float As[BS * BS];
  As[threadIdx.x] = y[threadIdx.x];
  y[threadIdx.x] = As[(threadIdx.x + 1) % (BS * BS)];
}

void launch_k(float* y, int n) {
  dim3 grid(n / 32, n / 32);
  sgemm_tiled<32><<<grid, 32 * 32>>>(y, n);
}
)";

const std::string kDefineTile = R"(#define TILE 16

template <int T>
__global__ void gemm(float* y, int n) {
  __shared__ float tile[T][T];
  tile[threadIdx.y][threadIdx.x] = y[threadIdx.x];
  y[threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}

void launch_k(float* y, int n) {
  gemm<TILE><<<dim3((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), dim3(TILE, TILE)>>>(y, n);
}
)";

TuningSpaceOptions no_compiler_dimensions() {
  TuningSpaceOptions o;
  o.launch_bounds = false;
  return o;
}

const TuningDimension* dimension_named(const TuningSpace& space, const std::string& name) {
  for (const auto& d : space.dimensions())
    if (d.name == name) return &d;
  return nullptr;
}

// The point of `space` with dimension `name` at `value`, every other at the original's.
TuningPoint with_value(const TuningSpace& space, const std::string& name, const std::string& value) {
  TuningPoint p = space.default_point();
  for (size_t i = 0; i < space.dimensions().size(); ++i)
    if (space.dimensions()[i].name == name) {
      const auto& values = space.dimensions()[i].values;
      p[i] = static_cast<size_t>(std::find(values.begin(), values.end(), value) - values.begin());
    }
  return p;
}

int tile_of(const std::string& source) {
  std::smatch m;
  return std::regex_search(source, m, std::regex(R"(gemm<(\d+)>)")) ? std::stoi(m[1]) : 0;
}

}  // namespace

TEST(TiedKnobs, ATemplateArgumentAndTheDim3BlockWrittenWithItAreOneKnob) {
  TestProject p(kDim3Tile);
  auto space = TuningSpace::build(Variant{kDim3Tile, {}, {}, ""}, p.spec(), no_compiler_dimensions());
  const TuningDimension* tile = dimension_named(space, "gemm tile");
  ASSERT_NE(tile, nullptr) << "dimensions: " << space.dimensions().size();
  EXPECT_EQ(tile->values, (std::vector<std::string>{"2", "4", "8", "16", "32"}));
  EXPECT_NE(tile->display.find("template argument 8 of gemm and the block written with it"), std::string::npos)
      << tile->display;
  // No block dimension of its own: x alone at 16 would launch 16 x 8 threads on 8 x 8 tiles.
  for (const auto& d : space.dimensions()) EXPECT_NE(d.name, "dim3(...).x");

  const Variant v16 = space.variant(with_value(space, "gemm tile", "16"));
  EXPECT_NE(v16.source.find("dim3 grid((n + 15) / 16, (n + 15) / 16);"), std::string::npos) << v16.source;
  EXPECT_NE(v16.source.find("gemm<16><<<grid, dim3(16, 16)>>>(y, n);"), std::string::npos) << v16.source;
  EXPECT_NE(v16.source.find("template <int TILE>"), std::string::npos);  // the kernel's own text is not touched
  // 2 x 2 and 4 x 4 threads are too few for a 2-D block; 32 x 32 is the most a block holds.
  EXPECT_FALSE(space.valid(with_value(space, "gemm tile", "2")));
  EXPECT_FALSE(space.valid(with_value(space, "gemm tile", "4")));
  EXPECT_TRUE(space.valid(with_value(space, "gemm tile", "32")));
}

TEST(TiedKnobs, ABlockWrittenAsTheTemplateArgumentSquaredFollowsIt) {
  TestProject p(kSquaredTile);
  auto space = TuningSpace::build(Variant{kSquaredTile, {}, {}, ""}, p.spec(), no_compiler_dimensions());
  const TuningDimension* tile = dimension_named(space, "sgemm_tiled tile");
  ASSERT_NE(tile, nullptr);
  const Variant v16 = space.variant(with_value(space, "sgemm_tiled tile", "16"));
  EXPECT_NE(v16.source.find("dim3 grid(n / 16, n / 16);"), std::string::npos) << v16.source;
  EXPECT_NE(v16.source.find("sgemm_tiled<16><<<grid, 16 * 16>>>(y, n);"), std::string::npos) << v16.source;
  EXPECT_FALSE(space.valid(with_value(space, "sgemm_tiled tile", "64")));  // 4096 threads
  EXPECT_TRUE(space.valid(with_value(space, "sgemm_tiled tile", "8")));
}

TEST(TiedKnobs, AFileScopeDefineTheBlockIsWrittenWithIsAKnob) {
  TestProject p(kDefineTile);
  auto space = TuningSpace::build(Variant{kDefineTile, {}, {}, ""}, p.spec(), no_compiler_dimensions());
  const TuningDimension* tile = dimension_named(space, "TILE");
  ASSERT_NE(tile, nullptr);
  const Variant v8 = space.variant(with_value(space, "TILE", "8"));
  EXPECT_NE(v8.source.find("#define TILE 8\n"), std::string::npos) << v8.source;
  EXPECT_NE(v8.source.find("gemm<TILE><<<dim3((n + TILE - 1) / TILE"), std::string::npos) << v8.source;
  EXPECT_TRUE(v8.defines.empty());  // the line is edited: an unguarded #define ignores -D
  EXPECT_FALSE(space.valid(with_value(space, "TILE", "64")));
}

// Tile 32 computes a wrong result (as a kernel whose shared memory a larger tile overruns would):
// the tuner sees it once, as a change of the tile alone, and never proposes 32 again, with any
// unroll factor; the search still finds the fastest tile that works.
TEST(TiedKnobs, AValueThatBreaksTheKernelIsLearntAndNotProposedAgain) {
  TestProject p(kDim3Tile);
  // One candidate a round: each is proposed knowing every verdict before it.
  p.config.search.rounds = 40;  // more than the space has points: the search ends exhausted
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
  p.config.search.max_candidates = 100;
  p.config.search.patience = 0;  // every point, not only until the rounds stop gaining
  SimulatedEvaluator e([](const Variant& v) {
    SimBehaviour b;
    const int tile = tile_of(v.source);
    b.wrong = tile == 32;
    b.time_us = tile == 16 ? 50 : 100;  // 16 is the fastest tile that works
    return b;
  });
  BuiltinProposer proposer(p.config, p.spec());
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  auto result = run_search(req);
  ASSERT_NE(result.best(), nullptr) << result.stop_reason;
  EXPECT_EQ(tile_of(result.best()->variant.source), 16) << result.best()->variant.source;
  int tried_32 = 0, wrong = 0;
  for (const auto& node : result.tree) {
    if (node.verdict() == Verdict::wrong_result) ++wrong;
    if (tile_of(node.variant.source) == 32) ++tried_32;
  }
  EXPECT_EQ(tried_32, 1) << "32 with another unroll factor was proposed after 32 alone broke the kernel";
  EXPECT_EQ(wrong, 1);
  EXPECT_NE(result.stop_reason.find("with a value that broke the kernel"), std::string::npos) << result.stop_reason;
}
