// The shipped replays (examples/replays/*.jsonl) drive the real search engine through round 2
// on the examples' config, with a simulated GPU whose verdicts are the ones each replay's header
// lists under "expected_verdicts" (the branch meant to be wrong is wrong, the broken one does
// not compile) and whose timings make every other reply correct and faster.
//
// Round 2 is run in both orders the real engine can give it. When a candidate that declares a
// knob is among the seeds, the tuner's idea comes first and the crossover is r2-i1; when none
// is, the crossover is r2-i0. The second is what the H100 run of issue #15 got, and its
// crossover replies, recorded under r2-i1, were never used.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>

#include "config/config_loader.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "search/llm/llm_proposer.h"
#include "search/llm/replay_log.h"
#include "search/llm/reply_parser.h"
#include "tests/search/simulated_evaluator.h"

using namespace kb;
using namespace kb::search;

namespace {

struct ReplayCase {
  const char* kernel;
  const char* knob;        // the tunable macro some of its candidates declare
  bool knob_fast;          // those candidates are the fastest of round 1, else the slowest correct ones
  int64_t crossover_idea;  // the crossover's idea number in round 2 that this gives
};

void PrintTo(const ReplayCase& c, std::ostream* os) {
  *os << c.kernel << (c.knob_fast ? ", knob fast" : ", knob slow");
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What the simulated GPU knows of a replay: which exchange wrote each piece of code, and the
// verdict the header expects for it.
struct ReplayCode {
  std::map<std::string, std::string> writer;          // code -> "implement r1-i0-b2"
  std::map<std::string, std::string> expected;        // "implement r1-i0-b2" -> "wrong_result"
  std::map<std::string, std::string> crossover_code;  // "r2-crossover-b0" -> code
};

ReplayCode index_replay(const ReplayFile& file, const std::string& launcher) {
  ReplayCode out;
  for (const auto& e : file.entries) {
    if (e.step == "ideas") continue;
    auto code = extract_code(e.reply, e.finish_reason, launcher);
    if (!code.ok()) continue;  // a reply cut off or without code never reaches the GPU
    out.writer.emplace(code.code, e.step + " " + e.key);
    if (e.step == "crossover") out.crossover_code[e.key] = code.code;
  }
  const nlohmann::json verdicts = file.header.value("expected_verdicts", nlohmann::json::object());
  for (const auto& [what, verdict] : verdicts.items()) out.expected[what] = verdict.get<std::string>();
  return out;
}

class ShippedReplaySearch : public ::testing::TestWithParam<ReplayCase> {};

TEST_P(ShippedReplaySearch, ReachesTheCrossoverWithTheRecordedReplies) {
  const ReplayCase param = GetParam();
  const std::string kernel = param.kernel;
  const std::string knob = param.knob;
  auto config = config::load_config(KB_SOURCE_DIR "/examples/kernelbot.toml");
  // This test checks every round-1 candidate's full verdict and the seeds the crossover grows
  // from: with screening the 100 us rewrites are screened out behind the 90 us ones and are no
  // seeds (screening_test.cpp tests the screening).
  config.search.screening = false;
  const auto& spec = *config.find_kernel(kernel);
  const std::string original = read_text(config.resolve(spec.source));
  ASSERT_FALSE(original.empty());
  const ReplayCode replay = index_replay(read_replay_file(KB_SOURCE_DIR "/examples/replays/" + kernel + ".jsonl"),
                                         spec.launcher);
  ASSERT_FALSE(replay.crossover_code.empty()) << "the replay records no crossover";

  // The original 300 us, a rewrite 100 us, a knob-declaring rewrite 90 us (a seed) or 150 us
  // (a seed only when no other correct rewrite takes its place), the tuner's values of the knob
  // a little faster than their seed, and a crossover, which keeps both parents' gains, 60 us.
  std::vector<std::string> unknown;
  std::mutex unknown_mutex;
  kb::testing::SimulatedEvaluator gpu([&](const Variant& v) {
    kb::testing::SimBehaviour b;
    b.time_us = 300;
    if (v.source == original) return b;
    auto writer = replay.writer.find(v.source);
    if (writer == replay.writer.end()) {
      std::lock_guard<std::mutex> lock(unknown_mutex);
      unknown.push_back(v.label);
      return b;
    }
    auto expected = replay.expected.find(writer->second);
    const std::string verdict = expected == replay.expected.end() ? "accepted" : expected->second;
    b.wrong = verdict == "wrong_result";
    b.compile_error = verdict == "compile_error";
    const bool declares_knob = v.source.find("#ifndef " + knob) != std::string::npos;
    b.time_us = declares_knob ? (param.knob_fast ? 90 : 150) : 100;
    if (auto value = kb::testing::define_value(v, knob)) b.time_us -= 5 + std::log2(std::stod(*value)) / 8;
    if (writer->second.rfind("crossover ", 0) == 0) b.time_us = 60;
    return b;
  });

  ProposerOptions options;
  options.name = "replay";
  options.replay_file = KB_SOURCE_DIR "/examples/replays/";
  auto proposer = make_proposer(config, spec, options);
  SearchRequest req{&config, &spec, &gpu, {}, proposer.get(), nullptr, {}};
  auto result = run_search(req);
  EXPECT_TRUE(unknown.empty()) << "code that no recorded reply wrote: " << ::testing::PrintToString(unknown);
  EXPECT_EQ(result.rounds_run, 2) << result.stop_reason;

  // Round 1 gets the verdicts the header expects.
  for (const auto& c : result.tree) {
    if (c.round != 1 || c.id.find("-fix") != std::string::npos || c.variant.source.empty()) continue;
    auto expected = replay.expected.find("implement " + c.id);
    EXPECT_EQ(to_string(c.verdict()), expected == replay.expected.end() ? "accepted" : expected->second) << c.id;
  }

  // The crossover comes after every other idea of round 2: after the tuner's when a candidate
  // declaring the knob is a seed, first when none is.
  const CandidateRecord* crossover = nullptr;
  for (const auto& c : result.tree)
    if (c.round == 2 && c.idea.family == "crossover" && !c.variant.source.empty()) {
      crossover = &c;
      break;
    }
  ASSERT_NE(crossover, nullptr) << "no crossover candidate was evaluated";
  EXPECT_EQ(crossover->id.rfind("r2-i" + std::to_string(param.crossover_idea) + "-b", 0), 0u) << crossover->id;

  // Its code is the recorded crossover reply's, and it was evaluated.
  const std::string branch = crossover->id.substr(crossover->id.find("-b"));
  auto recorded = replay.crossover_code.find("r2-crossover" + branch);
  ASSERT_NE(recorded, replay.crossover_code.end()) << crossover->id;
  EXPECT_EQ(crossover->variant.source, recorded->second);
  EXPECT_EQ(crossover->verdict(), Verdict::accepted) << crossover->reason();
  EXPECT_EQ(result.best_id, crossover->id);

  // A branch without a recorded reply says so, and only such branches do.
  for (const auto& c : result.tree) {
    if (c.round != 2 || c.idea.family != "crossover" || !c.variant.source.empty()) continue;
    const std::string key = "r2-crossover" + c.id.substr(c.id.find("-b"));
    EXPECT_EQ(replay.crossover_code.count(key), 0u) << key << " is recorded but " << c.id << ": " << c.reason();
    EXPECT_EQ(c.reason(), "no candidate: no reply recorded for crossover " + key) << c.id;
  }

  // Every recorded reply was asked for: none sits under a key the engine never asks.
  const auto* llm = dynamic_cast<const LlmProposer*>(proposer.get());
  ASSERT_NE(llm, nullptr);
  const auto* backend = dynamic_cast<const ReplayChatBackend*>(&llm->backend());
  ASSERT_NE(backend, nullptr);
  std::string unasked;
  for (const auto& k : backend->unasked()) unasked += k + "; ";
  EXPECT_EQ(unasked, "");
}

INSTANTIATE_TEST_SUITE_P(Examples, ShippedReplaySearch,
                         // Every saxpy candidate and every one of transpose's second idea declare
                         // the knob, so one of them is always a seed; row_sum's and layernorm's
                         // knob is in one branch only, which three other rewrites can outrun.
                         ::testing::Values(ReplayCase{"saxpy", "SAXPY_BLOCK", true, 1},
                                           ReplayCase{"transpose", "TRANSPOSE_ROWS", true, 1},
                                           ReplayCase{"transpose", "TRANSPOSE_ROWS", false, 1},
                                           ReplayCase{"row_sum", "ROW_SUM_THREADS", true, 1},
                                           ReplayCase{"row_sum", "ROW_SUM_THREADS", false, 0},
                                           ReplayCase{"layernorm", "LAYERNORM_THREADS", true, 1},
                                           ReplayCase{"layernorm", "LAYERNORM_THREADS", false, 0}),
                         [](const ::testing::TestParamInfo<ReplayCase>& param_info) {
                           const ReplayCase& c = param_info.param;
                           return std::string(c.kernel) + (c.knob_fast ? "_KnobFast" : "_KnobSlow");
                         });

}  // namespace
