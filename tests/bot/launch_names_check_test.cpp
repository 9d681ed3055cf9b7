// The names a kernel target's launch expressions may read: arguments, block_x..., the helpers,
// and what the source defines at file scope; a template parameter, a local of main(), a buffer or
// a size no argument passes is reported with the field it is in.
#include "bot/checks/launch_names_check.h"

#include <gtest/gtest.h>

namespace {

using kb::bot::file_scope_names;
using kb::bot::launch_name_problems;

kb::config::KernelSpec gemm_target(const std::string& grid, const std::string& block, const std::string& shared) {
  kb::config::KernelSpec k;
  k.name = "gemm";
  k.source = "src/gemm.cu";
  k.global = "gemm";
  k.grid = grid;
  k.block = block;
  k.shared_bytes = shared;
  for (const char* size : {"M", "N", "K"}) {
    kb::config::ArgSpec a;
    a.name = size;
    a.role = kb::ArgRole::size;
    k.args.push_back(a);
  }
  kb::config::ArgSpec c;
  c.name = "C";
  c.role = kb::ArgRole::output;
  k.args.push_back(c);
  kb::config::SizeSet set;
  set.values = {{"M", 64}, {"N", 64}, {"K", 64}, {"batch", 2}};
  k.sizes.push_back(set);
  return k;
}

const char* kSource = R"(#define TILE 16
#define CEIL(a, b) (((a) + (b) - 1) / (b))
constexpr int kWarps = 4;
static const unsigned kPad = 1;
enum { kStages = 2, kLanes };
namespace detail { constexpr int kHidden = 8; }
template <int TILE_X>
__global__ void gemm(int M, int N, int K, float* C) {
  const int local = TILE_X;
  C[0] = local;
}
int main() {
  const int threads = 256;
  return 0;
}
)";

TEST(LaunchNames, FileScopeNamesAreMacrosConstantsAndEnumeratorsNotLocalsOrTemplateParameters) {
  const auto names = file_scope_names({kSource});
  for (const char* expected : {"TILE", "CEIL", "kWarps", "kPad", "kStages", "kLanes"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const char* not_visible : {"TILE_X", "local", "threads", "kHidden", "gemm", "M"})
    EXPECT_EQ(std::find(names.begin(), names.end(), not_visible), names.end()) << not_visible;
}

TEST(LaunchNames, WhatTheShimBindsPasses) {
  const auto names = file_scope_names({kSource});
  const auto k = gemm_target("ceil_div(N, block_x), CEIL(M, TILE)", "TILE, TILE * kWarps / 4",
                             "2 * TILE * (TILE + kPad) * sizeof(float) + kStages * std::min(M, N)");
  EXPECT_TRUE(launch_name_problems(k, names, "src/gemm.cu").empty());
}

TEST(LaunchNames, EachUnboundNameIsReportedOnceWithItsField) {
  const auto names = file_scope_names({kSource});
  const auto k = gemm_target("M / TILE_X, N / TILE_X", "threads", "batch * 4 + C");
  const auto problems = launch_name_problems(k, names, "src/gemm.cu");
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0].key, "grid");
  EXPECT_EQ(problems[0].message,
            "\"M / TILE_X, N / TILE_X\" names TILE_X, which is not an argument, a size or a macro of src/gemm.cu");
  EXPECT_EQ(problems[1].key, "block");
  EXPECT_EQ(problems[1].message,
            "\"threads\" names threads, which is not an argument, a size or a macro of src/gemm.cu");
  EXPECT_EQ(problems[2].key, "shared_bytes");
  EXPECT_NE(problems[2].message.find("names batch, a size of the size sets that no [[kernel.arg]] passes"),
            std::string::npos)
      << problems[2].message;
  EXPECT_NE(problems[3].message.find("names C, a buffer"), std::string::npos) << problems[3].message;
}

TEST(LaunchNames, ALauncherTargetAndUnfinishedExpressionsAreNotJudged) {
  auto launcher = gemm_target("TILE_X", "TILE_X", "");
  launcher.global.clear();
  launcher.launcher = "run_gemm";
  EXPECT_TRUE(launch_name_problems(launcher, {}, "src/gemm.cu").empty());
  const auto todo = gemm_target("ceil_div(TODO, block_x)", "256", "0");
  EXPECT_TRUE(launch_name_problems(todo, {}, "src/gemm.cu").empty());
}

}  // namespace
