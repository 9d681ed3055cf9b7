// `kernelbot profile` on a GPU (label gpu): the configured kernels timed with metrics, and the
// demo workload (examples/src/demo_app.cu) ranked through the CUPTI injection library.
#include <gtest/gtest.h>

#include "tests/support/toml_text.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/result_types.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb {
namespace {
namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

profiler::SandboxResult run(std::vector<std::string> args, const fs::path& cwd) {
  profiler::SandboxCommand c;
  c.argv = std::move(args);
  c.argv.insert(c.argv.begin(), env_or("KERNELBOT_BIN", KB_KERNELBOT_BIN));
  c.scrub_env = false;
  // kernelbot is the trusted parent and starts bubblewrap itself: as root, bwrap needs the
  // capabilities a process-sandboxed child would lose (mapping uid 0 takes CAP_SETFCAP).
  c.launches_bwrap = true;
  c.working_dir = cwd;
  c.limits.wall_time_s = 300;
  return profiler::run_sandboxed(c);
}

fs::path examples() { return fs::path(env_or("KB_TEST_SOURCE_DIR", KB_SOURCE_DIR)) / "examples"; }

TEST(ProfileGpu, ConfiguredKernelTimedWithMetrics) {
  // A private copy: profiling writes its work directory beside the config.
  fs::path dir = fs::temp_directory_path() / "kernelbot-profile-gpu-test";
  fs::create_directories(dir);
  for (const char* sub : {"src", "include"}) {
    fs::remove_all(dir / sub);
    fs::copy(examples() / sub, dir / sub, fs::copy_options::recursive);
  }
  std::ifstream in(examples() / "kernelbot.toml");
  std::stringstream toml;
  toml << in.rdbuf();
  std::ofstream(dir / "kernelbot.toml") << kb::testing::without_table(toml.str(), "bench")
                                        << "\n[bench]\nmin_time_s = 0.1\n";

  auto r = run({"--json", "profile", "--kernel", "transpose"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << r.err;
  auto j = nlohmann::json::parse(r.out)["kernels"];  // {"ok": true, "exit_code": 0, "kernels": [...]}
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kernel"], "transpose");
  EvalResult result = j[0]["result"].get<EvalResult>();
  ASSERT_EQ(result.timings.size(), 3u);
  for (const auto& t : result.timings) {
    EXPECT_GT(t.baseline.median_us, 1) << t.size_label;
    EXPECT_GT(t.baseline.samples, 0);
    EXPECT_GT(t.floor_us, 0) << "bytes from the spec and the measured bandwidth give a floor";
    EXPECT_GT(t.baseline_pct_of_floor, 0);
    EXPECT_LE(t.baseline_pct_of_floor, 110);
  }
  EXPECT_GT(result.device.copy_bandwidth_gbps, 100);
  EXPECT_GT(result.baseline_metrics.registers_per_thread, 0);
  EXPECT_EQ(result.baseline_metrics.status, "ok") << result.baseline_metrics.status;
  EXPECT_GT(result.baseline_metrics.values.count("dram_throughput_pct"), 0u);

  auto text = run({"profile", "--kernel", "transpose", "--no-metrics"}, dir);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("rows=4096"), std::string::npos) << text.out;
  std::printf("%s", text.out.c_str());
}

TEST(ProfileGpu, DemoWorkloadIsRankedAndMappedToSources) {
  const std::string demo = env_or("KB_DEMO_APP", KB_DEMO_APP);
  ASSERT_TRUE(fs::exists(demo)) << demo;
  auto r = run({"--config", (examples() / "kernelbot.toml").string(), "--json", "profile", "--", demo},
               fs::temp_directory_path());
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["kernels"].size(), 4u) << j.dump(1);
  std::set<std::string> names, configured;
  double share = 0;
  for (const auto& k : j["kernels"]) {
    names.insert(k["name"].get<std::string>());
    for (const auto& c : k["configured_kernels"]) configured.insert(c.get<std::string>());
    EXPECT_EQ(k["calls"], 21) << k.dump();  // one warm-up and 20 timed calls per kernel in demo_app
    EXPECT_FALSE(k["sources"].empty()) << k.dump();
    share += k["share"].get<double>();
  }
  EXPECT_EQ(names, (std::set<std::string>{"saxpy_kernel", "transpose_kernel", "row_sum_kernel", "layernorm_kernel"}));
  EXPECT_EQ(configured, (std::set<std::string>{"saxpy", "transpose", "row_sum", "layernorm"}));
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_GE(j["kernels"][0]["total_ms"].get<double>(), j["kernels"][1]["total_ms"].get<double>());

  auto text = run({"--config", (examples() / "kernelbot.toml").string(), "profile", "--", demo},
                  fs::temp_directory_path());
  EXPECT_EQ(text.exit_code, 0);
  std::printf("%s", text.out.c_str());
}

}  // namespace
}  // namespace kb
