// The llm proposer end to end: a loopback server plays the model (ideas, code, a truncated
// reply, a reply without code, a repair, a crossover), the simulated evaluator plays the GPU.
// Then the recording of that run is replayed without the server and must give the same tree.
#include "search/llm/llm_proposer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "core/errors.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "search/llm/replay_log.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"
#include "tests/support/loopback_http_server.h"

using namespace kb;
using namespace kb::search;
using kb::testing::LoopbackHttpServer;
using kb::testing::LoopbackRequest;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

std::string completion(const std::string& content, const std::string& finish = "stop") {
  nlohmann::json j{
      {"model", "fake-coder"},
      {"choices",
       {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", finish}}}},
      {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 50}}}};
  return j.dump();
}

const std::string kVectorized =
    "#ifndef K_BLOCK\n#define K_BLOCK 256\n#endif\n// SIM_TIME=50\n__global__ void k(float* y, int n) {}\n"
    "void launch_k(float* y, int n) {\n  k<<<(n + K_BLOCK - 1) / K_BLOCK, K_BLOCK>>>(y, n);\n}\n";

// The model: what it answers depends on the task in the last user message.
kb::testing::LoopbackResponse model(const LoopbackRequest& req) {
  auto body = nlohmann::json::parse(req.body);
  std::string prompt = body["messages"].back()["content"];
  std::string all = body["messages"].dump();
  auto reply = [](const std::string& content, const std::string& finish = "stop") {
    return kb::testing::json_response(200, completion(content, finish));
  };
  if (all.find("# Task: propose") != std::string::npos) {
    if (all.find("round 1 of") != std::string::npos)
      return reply("Looking at the profile, the kernel is far from its floor.\n```json\n"
                   "[{\"text\": \"vectorize\", \"family\": \"memory_access\", \"rationale\": \"16-byte loads\"},\n"
                   " {\"text\": \"fuse\", \"family\": \"fusion\", \"rationale\": \"one launch\"}]\n```");
    return reply("I think we are done here.");
  }
  std::smatch m;
  std::regex variant_re("variant ([0-9]+) of ([0-9]+)");
  std::regex_search(prompt, m, variant_re);
  int branch = m.empty() ? 0 : std::stoi(m[1]);
  if (prompt.find("# Task: implement") != std::string::npos) {
    if (prompt.find("\nvectorize (family") != std::string::npos) {
      if (branch == 1) return reply("Here it is:\n```cuda\n" + kVectorized + "```\nUses K_BLOCK threads.");
      return reply("```cuda\n#include <cuda_runtime.h>\n__global__ void k(float* y, int n) {\n  int i =", "length");
    }
    if (branch == 1) return reply("I'm sorry, fusing is not possible for a single kernel.");
    return reply("```cuda\n// SIM_COMPILE_ERROR\nvoid launch_k(float* y, int n) {\n  undefined_thing();\n}\n```");
  }
  if (prompt.find("# Task: fix") != std::string::npos) {
    if (prompt.find("undefined_thing") == std::string::npos) return kb::testing::json_response(400, "{}");
    return reply("Fixed:\n```cuda\n// SIM_TIME=40\nvoid launch_k(float* y, int n) {\n}\n```");
  }
  if (prompt.find("# Task: merge") != std::string::npos)
    return reply("```cuda\n// SIM_TIME=" + std::to_string(30 + branch) + "\nvoid launch_k(float* y, int n) {\n}\n```");
  return kb::testing::json_response(400, R"({"error":{"message":"unexpected prompt"}})");
}

void configure_llm(TestProject& p, const LoopbackHttpServer& server) {
  p.config.llm.provider = "openai-compatible";
  p.config.llm.base_url = server.base_url();
  p.config.llm.model = "fake-coder";
  p.config.llm.api_key_env = "";
  p.config.search.rounds = 2;
  p.config.search.ideas_per_round = 2;
  p.config.search.branches_per_idea = 2;
}

SearchResult search_with(TestProject& p, Proposer& proposer) {
  SimulatedEvaluator e;
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  return run_search(req);
}

}  // namespace

TEST(LlmProposer, IdeasBranchesFailuresRepairAndCrossoverThroughARealHttpExchange) {
  TestProject p;
  LoopbackHttpServer server(model);
  configure_llm(p, server);
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  options.record_file = p.root / "recording.jsonl";
  auto proposer = make_proposer(p.config, p.spec(), options);
  EXPECT_EQ(proposer->name(), "llm");  // "auto" with a provider set
  auto result = search_with(p, *proposer);

  const auto* vec = result.find("r1-i0-b0");
  ASSERT_NE(vec, nullptr);
  EXPECT_EQ(vec->verdict(), Verdict::accepted);
  EXPECT_EQ(vec->idea.text, "vectorize");
  EXPECT_EQ(vec->variant.source, kVectorized);
  EXPECT_NE(result.find("r1-i0-b1")->reason().find("finish_reason \"length\""), std::string::npos);
  EXPECT_EQ(result.find("r1-i0-b1")->verdict(), Verdict::rejected);
  EXPECT_EQ(result.find("r1-i1-b0")->reason(), "no candidate: the reply contains no code");
  EXPECT_EQ(result.find("r1-i1-b1")->verdict(), Verdict::compile_error);
  const auto* fixed = result.find("r1-i1-b1-fix1");
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->verdict(), Verdict::accepted);
  EXPECT_DOUBLE_EQ(fixed->speedup(), 100.0 / 40.0);

  // Round 2: the model has no ideas, but the hybrid tunes the knob r1-i0-b0 declared, and two
  // different seeds make a crossover.
  const auto* tuned = result.find("r2-i0-b0");
  ASSERT_NE(tuned, nullptr);
  EXPECT_EQ(tuned->parent_id, "r1-i0-b0");
  EXPECT_EQ(tuned->variant.defines, std::vector<std::string>{"K_BLOCK=128"});
  EXPECT_EQ(result.find("r2-i0-b1")->variant.defines, std::vector<std::string>{"K_BLOCK=512"});
  const auto* merged = result.find("r2-i1-b0");
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->idea.family, "crossover");
  EXPECT_EQ(result.best_id, "r2-i1-b0");
  EXPECT_DOUBLE_EQ(result.best()->speedup(), 100.0 / 31.0);

  // ideas r1, 4 branches, 1 repair, ideas r2 and its reminder, 2 crossover branches.
  EXPECT_EQ(server.requests().size(), 10u);
  EXPECT_EQ(result.budget.llm_requests, 10);
  EXPECT_EQ(result.budget.prompt_tokens, 1000);
  EXPECT_EQ(result.budget.completion_tokens, 500);

  auto recording = read_replay_file(p.root / "recording.jsonl");
  EXPECT_EQ(recording.header["kernelbot_replay"], 1);
  EXPECT_EQ(recording.header["kernel"], "k");
  EXPECT_EQ(recording.entries.size(), 10u);
  EXPECT_EQ(recording.result["best_id"], "r2-i1-b0");
}

TEST(LlmProposer, ARecordedRunReplaysToTheSameTreeWithoutTheModel) {
  TestProject p;
  LoopbackHttpServer server(model);
  configure_llm(p, server);
  ProposerOptions record;
  record.retry = RetryPolicy{0.01, 0.05, 5};
  record.record_file = p.root / "run.jsonl";
  auto live = make_proposer(p.config, p.spec(), record);
  auto first = search_with(p, *live);
  size_t requests_after_recording = server.requests().size();

  ProposerOptions replay;
  replay.name = "replay";
  replay.replay_file = p.root / "run.jsonl";
  auto replayed_proposer = make_proposer(p.config, p.spec(), replay);
  EXPECT_EQ(replayed_proposer->name(), "replay");
  auto second = search_with(p, *replayed_proposer);

  EXPECT_EQ(server.requests().size(), requests_after_recording);  // the model was not asked again
  ASSERT_EQ(first.tree.size(), second.tree.size());
  for (size_t i = 0; i < first.tree.size(); ++i) {
    EXPECT_EQ(first.tree[i].id, second.tree[i].id);
    EXPECT_EQ(first.tree[i].parent_id, second.tree[i].parent_id);
    EXPECT_EQ(first.tree[i].verdict(), second.tree[i].verdict()) << first.tree[i].id;
    EXPECT_EQ(first.tree[i].variant_hash, second.tree[i].variant_hash) << first.tree[i].id;
    EXPECT_EQ(first.tree[i].reason(), second.tree[i].reason()) << first.tree[i].id;
  }
  EXPECT_EQ(first.best_id, second.best_id);
  EXPECT_EQ(second.budget.prompt_tokens + second.budget.completion_tokens, 0);
  EXPECT_EQ(second.budget.llm_requests, 10);
  EXPECT_EQ(second.proposer, "replay");
}

TEST(ReplayLog, ReadsArraysSkipsBlankLinesAndNamesTheBadLine) {
  TestProject p;
  p.write("a.json", R"([{"kernelbot_replay": 1, "kernel": "k"},
                         {"step": "ideas", "key": "r1", "reply": "[]"},
                         {"step": "result", "best_id": "r1-i0-b0"}])");
  auto a = read_replay_file(p.root / "a.json");
  EXPECT_EQ(a.entries.size(), 1u);
  EXPECT_EQ(a.entries[0].finish_reason, "stop");
  EXPECT_EQ(a.result["best_id"], "r1-i0-b0");
  p.write("b.jsonl", "{\"step\": \"ideas\", \"key\": \"r1\", \"reply\": \"x\"}\n\n{\"step\": \"implement\"}\n");
  try {
    read_replay_file(p.root / "b.jsonl");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("b.jsonl:3"), std::string::npos) << e.what();
  }
  p.write("c.jsonl", "{\"step\": \"ideas\", \"key\": \"r1\", \"reply\": \"x\"}\nnot json\n");
  EXPECT_THROW(read_replay_file(p.root / "c.jsonl"), std::runtime_error);
  EXPECT_THROW(read_replay_file(p.root / "missing.jsonl"), std::runtime_error);
}

TEST(ReplayLog, AMissingReplyEndsIdeasAndSaysNoReplyRecordedForABranch) {
  TestProject p;
  p.write("r.jsonl", "{\"step\": \"ideas\", \"key\": \"r1\", \"reply\": \"[{\\\"text\\\": \\\"t\\\", \\\"family\\\": "
                     "\\\"fusion\\\"}]\"}\n");
  p.config.search.proposer = "replay";
  p.config.search.replay_file = "r.jsonl";
  auto proposer = make_proposer(p.config, p.spec());
  auto result = search_with(p, *proposer);
  ASSERT_NE(result.find("r1-i0-b0"), nullptr);
  // A normal end of a hand-written replay, not a failed model request.
  EXPECT_EQ(result.find("r1-i0-b0")->reason(), "no candidate: no reply recorded for implement r1-i0-b0");
  EXPECT_EQ(result.stop_reason, "no reply recorded for ideas r2");
}

TEST(ProposerFactory, ReplayAndRecordPathsArePerKernel) {
  EXPECT_EQ(per_kernel_replay_path("runs/{kernel}-1.jsonl", "saxpy"), "runs/saxpy-1.jsonl");
  EXPECT_EQ(per_kernel_replay_path("replays/", "saxpy"), "replays/saxpy.jsonl");
  EXPECT_EQ(per_kernel_replay_path("one.jsonl", "saxpy"), "one.jsonl");

  TestProject p;                                                       // its kernel is "k"
  EXPECT_EQ(per_kernel_replay_path(p.root, "k"), p.root / "k.jsonl");  // an existing directory
  std::filesystem::create_directories(p.root / "replays");
  p.write("replays/k.jsonl", "{\"kernelbot_replay\": 1, \"kernel\": \"k\"}\n");
  p.write("replays/other.jsonl", "{\"kernelbot_replay\": 1, \"kernel\": \"other\"}\n");
  EXPECT_EQ(make_proposer(p.config, p.spec(), ProposerOptions{"replay", p.root / "replays", {}, {}})->name(), "replay");
  // A recording of another kernel would only give candidates with the wrong launcher.
  try {
    make_proposer(p.config, p.spec(), ProposerOptions{"replay", p.root / "replays" / "other.jsonl", {}, {}});
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("records kernel 'other', not 'k'"), std::string::npos) << e.what();
  }
  std::filesystem::create_directories(p.root / "empty");
  try {
    make_proposer(p.config, p.spec(), ProposerOptions{"replay", p.root / "empty", {}, {}});
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("empty/k.jsonl for kernel 'k' does not exist"), std::string::npos) << e.what();
  }
}

TEST(ProposerFactory, ChoosesByNameAndExplainsWhatIsMissing) {
  TestProject p;
  EXPECT_EQ(resolve_proposer_name(p.config, ""), "builtin");  // auto without a model
  EXPECT_EQ(make_proposer(p.config, p.spec())->name(), "builtin");
  EXPECT_THROW(make_proposer(p.config, p.spec(), ProposerOptions{"genetic", {}, {}, {}}), kb::UsageError);
  try {
    make_proposer(p.config, p.spec(), ProposerOptions{"replay", {}, {}, {}});
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("replay_file"), std::string::npos);
  }
  try {
    make_proposer(p.config, p.spec(), ProposerOptions{"llm", {}, {}, {}});
    FAIL() << "expected an error";
  } catch (const kb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("[llm].model"), std::string::npos);
  }
  register_proposer("scripted-for-test",
                    [](const config::Config& c, const config::KernelSpec& s,
                       const ProposerOptions&) -> std::unique_ptr<Proposer> {
                      return make_proposer(c, s, ProposerOptions{"builtin", {}, {}, {}});
                    });
  EXPECT_EQ(make_proposer(p.config, p.spec(), ProposerOptions{"scripted-for-test", {}, {}, {}})->name(), "builtin");
}

// A model that answers an implement prompt with a diff, and with the whole file when reminded
// (branch 0); or with a diff again (branch 1).
kb::testing::LoopbackResponse diff_first_model(const LoopbackRequest& req) {
  auto body = nlohmann::json::parse(req.body);
  const std::string prompt = body["messages"].back()["content"];
  const std::string all = body["messages"].dump();
  auto reply = [](const std::string& content) { return kb::testing::json_response(200, completion(content)); };
  if (all.find("# Task: propose") != std::string::npos) {
    if (all.find("round 1 of") != std::string::npos)
      return reply("[{\"text\": \"vectorize\", \"family\": \"memory_access\", \"rationale\": \"16-byte loads\"}]");
    return reply("[]");
  }
  const bool reminded = prompt.find("cannot be compiled as it is") != std::string::npos;
  const bool second_branch = all.find("variant 2 of") != std::string::npos;  // numbered from 1
  if (reminded && !second_branch) return reply("Sorry, here is all of it:\n```cuda\n" + kVectorized + "```");
  return reply("```diff\n--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,3 @@\n-#define K_BLOCK 128\n+#define K_BLOCK 256\n```");
}

TEST(LlmProposer, ADiffOrElidedReplyIsAskedForTheWholeFileOnceAndTheAnswerJudged) {
  TestProject p;
  LoopbackHttpServer server(diff_first_model);
  configure_llm(p, server);
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  options.record_file = p.root / "recording.jsonl";
  auto proposer = make_proposer(p.config, p.spec(), options);
  auto result = search_with(p, *proposer);

  const auto* whole = result.find("r1-i0-b0");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(whole->verdict(), Verdict::accepted) << whole->reason();
  EXPECT_EQ(whole->variant.source, kVectorized);
  const auto* diff = result.find("r1-i0-b1");
  ASSERT_NE(diff, nullptr);
  EXPECT_NE(diff->reason().find("unified diff"), std::string::npos) << diff->reason();
  // ideas, then per branch its request and one reminder (never a second one).
  EXPECT_EQ(server.requests().size(), 5u);
  size_t reminders = 0;
  for (const auto& r : server.requests()) {
    const auto messages = nlohmann::json::parse(r.body)["messages"];
    if (messages.back()["content"].get<std::string>().find("cannot be compiled as it is") == std::string::npos)
      continue;
    ++reminders;
    // The reminder carries the model's own reply and names what was wrong with it.
    EXPECT_EQ(messages[messages.size() - 2]["role"], "assistant");
    EXPECT_NE(messages.back()["content"].get<std::string>().find("unified diff"), std::string::npos);
  }
  EXPECT_EQ(reminders, 2u);
  // The recording keeps the reminder exchange under its own key, so a replay finds it.
  const auto recording = read_replay_file(p.root / "recording.jsonl");
  bool retry_recorded = false;
  for (const auto& e : recording.entries) retry_recorded = retry_recorded || e.key == "r1-i0-b0-retry";
  EXPECT_TRUE(retry_recorded);
}
