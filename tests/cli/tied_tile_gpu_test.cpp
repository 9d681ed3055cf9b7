// The tied_tile fixture on a GPU: a kernel target whose tile is both its template argument and its
// block (`gemm_tiled<8><<<grid, dim3(8, 8)>>>`, deliberately slow). The builtin tuner changes the
// tile, the block and the grid's divisors as one knob and finds a verified win over 1.2x, which the
// dry-run PR writes at the launch site. Label gpu. The sizes are the fixture's own (1024) and one
// that is no multiple of any tile: every verified candidate also runs under compute-sanitizer's
// tools at the PR step, which are slow on a shared-memory GEMM.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

const char* kConfig = R"toml([search]
proposer = "builtin"
max_candidates = 4
rounds = 2

[[kernel]]
name = "gemm"
source = "gemm.cu"
global = "gemm_tiled"
template_args = "8"
grid = "ceil_div(N, block_x), ceil_div(M, block_y)"
block = "8, 8"
sizes = [{ M = 1024, N = 1024, K = 1024 }, { M = 1000, N = 1000, K = 1000 }]
  [[kernel.arg]]
  name = "A"
  role = "input"
  dtype = "float32"
  count = "M*K"
  [[kernel.arg]]
  name = "B"
  role = "input"
  dtype = "float32"
  count = "K*N"
  [[kernel.arg]]
  name = "C"
  role = "output"
  dtype = "float32"
  count = "M*N"
  [[kernel.arg]]
  name = "M"
  role = "size"
  dtype = "int32"
  value = "M"
  [[kernel.arg]]
  name = "N"
  role = "size"
  dtype = "int32"
  value = "N"
  [[kernel.arg]]
  name = "K"
  role = "size"
  dtype = "int32"
  value = "K"
)toml";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TiedTileGpu, TheBuiltinTunerTunesTheTileAndBlockTogetherToAVerifiedWin) {
  fs::path dir = fs::temp_directory_path() / ("kb_tied_tile_gpu_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/tied_tile", dir, fs::copy_options::recursive);
  std::ofstream(dir / "kernelbot.toml") << kConfig;
  auto run = kb::testing::run_kernelbot("run --dry-run --kernel gemm", dir);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  std::printf("%s\n", run.out.c_str());  // the run's table: the win, for the notes

  // The winner: accepted, over 1.2x, with the template argument and the block changed together.
  const fs::path result_file = dir / ".kernelbot/results/gemm/result.json";
  ASSERT_TRUE(fs::exists(result_file)) << run.out << run.err;
  const auto result = nlohmann::json::parse(slurp(result_file));
  const std::string best_id = result.value("best_id", "");
  ASSERT_FALSE(best_id.empty()) << result.dump(2);
  nlohmann::json best;
  for (const auto& node : result["tree"])
    if (node["id"] == best_id) best = node;
  ASSERT_FALSE(best.is_null()) << result.dump(2);
  EXPECT_EQ(best["verdict"], "accepted") << best.dump(2);
  EXPECT_GT(best["speedup"].get<double>(), 1.2) << best.dump(2);
  const std::string source = best["variant"]["source"].get<std::string>();
  EXPECT_EQ(source.find("gemm_tiled<8><<<"), std::string::npos) << source;
  const bool tile16 = source.find("gemm_tiled<16><<<grid, dim3(16, 16)>>>") != std::string::npos;
  const bool tile32 = source.find("gemm_tiled<32><<<grid, dim3(32, 32)>>>") != std::string::npos;
  EXPECT_TRUE(tile16 || tile32) << source;

  // The dry-run PR edits the launch site: tile and block in one line, the grid's divisors too.
  std::string patch;
  for (const auto& e : fs::recursive_directory_iterator(dir / ".kernelbot/prs"))
    if (e.path().filename() == "change.patch") patch = slurp(e.path());
  EXPECT_NE(patch.find("-  gemm_tiled<8><<<grid, dim3(8, 8)>>>(A, B, C, M, N, K);"), std::string::npos) << patch;
  EXPECT_NE(patch.find("-  dim3 grid((N + 7) / 8, (M + 7) / 8);"), std::string::npos) << patch;
  fs::remove_all(dir);
}

}  // namespace
