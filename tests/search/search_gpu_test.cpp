// On the device (label gpu): the built `kernelbot search --json` on examples/ with the real GPU
// evaluator. The builtin tuner must find the block-size fix of saxpy by itself, the shipped
// replay must reach its vectorized winner, with the real verifier catching the replay's bugs,
// and every shipped replay must reach its crossover with the replies it records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

struct SearchRun {
  int status = -1;
  nlohmann::json result;
  std::string log;
};

SearchRun kernelbot_search(const std::string& args, const std::string& kernel = "saxpy") {
  auto log = std::filesystem::temp_directory_path() / ("kb_search_gpu_" + std::to_string(::getpid()) + ".log");
  std::string cmd = std::string(KB_BINARY_DIR "/bot/kernelbot --config " KB_SOURCE_DIR "/examples/kernelbot.toml "
                                              "--json search --no-archive --kernel ") +
                    kernel + " " + args + " 2>" + log.string();
  SearchRun run;
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[65536];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  run.status = pipe ? pclose(pipe) : -1;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  run.log = s.str();
  run.result = nlohmann::json::parse(out, nullptr, false);
  return run;
}

const nlohmann::json* find(const nlohmann::json& result, const std::string& id) {
  for (const auto& c : result["tree"])
    if (c["id"] == id) return &c;
  return nullptr;
}

}  // namespace

TEST(SearchOnGpu, BuiltinTunerFindsTheSaxpyBlockSizeFix) {
  SearchRun run = kernelbot_search("--proposer builtin");
  ASSERT_EQ(run.status, 0) << run.log;
  ASSERT_FALSE(run.result.is_discarded()) << run.log;
  std::string best_id = run.result["best_id"];
  ASSERT_FALSE(best_id.empty()) << run.log;
  const auto* best = find(run.result, best_id);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ((*best)["verdict"], "accepted");
  EXPECT_TRUE((*best)["eval"]["verification"]["passed"].get<bool>());
  int block = 32;
  for (const auto& d : (*best)["variant"]["defines"]) {
    std::string define = d;
    if (define.rfind("SAXPY_BLOCK=", 0) == 0) block = std::stoi(define.substr(12));
  }
  EXPECT_GE(block, 128) << (*best)["variant"]["label"];
  // At 16M elements the launch is all memory traffic: 32-thread blocks leave most of it on the table.
  double large = 0;
  for (const auto& t : (*best)["eval"]["timings"])
    if (t["size_label"] == "n=16777216") large = t["speedup"];
  EXPECT_GE(large, 3.0) << (*best)["eval"]["timings"].dump(2);
  EXPECT_GE((*best)["speedup"].get<double>(), 2.0);
}

TEST(SearchOnGpu, TheSaxpyReplayReachesItsVectorizedWinner) {
  SearchRun run = kernelbot_search("--replay " KB_SOURCE_DIR "/examples/replays/saxpy.jsonl");
  ASSERT_EQ(run.status, 0) << run.log;
  ASSERT_FALSE(run.result.is_discarded()) << run.log;
  EXPECT_EQ(run.result["proposer"], "replay");
  std::string best_id = run.result["best_id"];
  ASSERT_FALSE(best_id.empty()) << run.log;
  const auto* best = find(run.result, best_id);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ((*best)["verdict"], "accepted");
  std::string source = (*best)["variant"]["source"];
  EXPECT_NE(source.find("float4"), std::string::npos);
  EXPECT_GE((*best)["speedup"].get<double>(), 2.0);
  // The recorded mistakes are caught by the real compiler and verifier.
  ASSERT_NE(find(run.result, "r1-i0-b2"), nullptr);
  EXPECT_EQ((*find(run.result, "r1-i0-b2"))["verdict"], "wrong_result");  // no tail: n = 1000003 fails
  EXPECT_EQ((*find(run.result, "r1-i1-b0"))["verdict"], "compile_error");
  ASSERT_NE(find(run.result, "r1-i1-b0-fix1"), nullptr);
  EXPECT_EQ((*find(run.result, "r1-i1-b0-fix1"))["verdict"], "accepted");
  EXPECT_EQ((*find(run.result, "r1-i0-b0"))["verdict"], "accepted");
}

// Issue #15: on the H100 the row_sum and layernorm replays never used their crossover replies.
// Now each replay's round 2 must evaluate a crossover whose code is a recorded reply, and round
// 1 must give the verdicts its header expects.
class ShippedReplayOnGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedReplayOnGpu, ReachesItsCrossover) {
  const std::string kernel = GetParam();
  // The examples' 150 s budget is the demo's; layernorm's round 1 alone takes longer on an H100
  // (six candidates in 209 s), and round 2 is what this test is about.
  SearchRun run = kernelbot_search("--max-wall-time 600 --replay " KB_SOURCE_DIR "/examples/replays/", kernel);
  ASSERT_EQ(run.status, 0) << run.log;
  ASSERT_FALSE(run.result.is_discarded()) << run.log;
  std::ifstream replay(KB_SOURCE_DIR "/examples/replays/" + kernel + ".jsonl");
  std::string header_line;
  std::getline(replay, header_line);
  const auto expected = nlohmann::json::parse(header_line).value("expected_verdicts", nlohmann::json::object());
  for (const auto& [what, verdict] : expected.items()) {
    const std::string id = what.substr(what.find(' ') + 1);  // "implement r1-i1-b2": the candidate r1-i1-b2
    ASSERT_NE(find(run.result, id), nullptr) << id;
    EXPECT_EQ((*find(run.result, id))["verdict"], verdict) << id;
  }
  int evaluated_crossovers = 0;
  for (const auto& c : run.result["tree"])
    if (c["round"] == 2 && c["idea"]["family"] == "crossover" && c["verdict"] != "rejected") ++evaluated_crossovers;
  EXPECT_GE(evaluated_crossovers, 1) << "stopped: " << run.result["stop_reason"] << "\n" << run.log;
  EXPECT_EQ(run.log.find("not asked for"), std::string::npos) << run.log;
}

INSTANTIATE_TEST_SUITE_P(Examples, ShippedReplayOnGpu, ::testing::Values("saxpy", "transpose", "row_sum", "layernorm"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });
