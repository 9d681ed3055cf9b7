// The evidence a recording keeps for the next person: the full prompt of every exchange, each
// failed attempt (HTTP status and body) and the exchanges that failed for good, with the key
// redacted; the model answering in the shapes providers document (a reasoning model's reply with
// its usage details, a llama.cpp server's with <think> and timings). Replaying the recording
// gives the same tree, lost round included.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>

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
using kb::testing::LoopbackResponse;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

const char* kKey = "sk-proj-Zr8fQ2mW9xKc4TnB7vLp1sYd6HgJ3eAu";

// OpenAI's documented chat completion of a reasoning model: refusal and annotations in the
// message, logprobs, usage details with reasoning tokens, service tier, fingerprint.
std::string reasoning_model_body(const std::string& content) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion", "created": 1741570283,
    "model": "o3-mini-2025-01-31",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "", "refusal": null, "annotations": []},
                 "logprobs": null, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1117, "completion_tokens": 1046, "total_tokens": 2163,
              "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
              "completion_tokens_details": {"reasoning_tokens": 832, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
    "service_tier": "default", "system_fingerprint": "fp_ef58bd3122"})");
  j["choices"][0]["message"]["content"] = content;
  return j.dump();
}

// llama.cpp server's whole reply: the reasoning left in the content as a <think> block, its
// timings beside the usage, the generic model name it reports.
std::string llama_cpp_body(const std::string& content) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "choices": [{"finish_reason": "stop", "index": 0, "message": {"role": "assistant", "content": ""}}],
    "created": 1741570300, "model": "gpt-3.5-turbo", "system_fingerprint": "b4743-d04e7163",
    "object": "chat.completion", "usage": {"completion_tokens": 412, "prompt_tokens": 2048, "total_tokens": 2460},
    "id": "chatcmpl-d2kG4Ht9Xq0vTQq6", "timings": {"prompt_n": 2048, "prompt_ms": 311.2, "predicted_n": 412,
    "predicted_ms": 5120.7, "predicted_per_second": 80.4}})");
  j["choices"][0]["message"]["content"] = "<think>\nThe tail must stay scalar.\n</think>\n\n" + content;
  return j.dump();
}

// The model: round 1's ideas fail once with a 503 that echoes the key, then come; branch 2 of
// every idea always fails with a 500; round 2's ideas request always fails (a lost round).
class Model {
 public:
  LoopbackResponse operator()(const LoopbackRequest& req) {
    auto body = nlohmann::json::parse(req.body);
    const std::string prompt = body["messages"].back()["content"];
    std::lock_guard<std::mutex> lock(mutex_);
    if (prompt.find("# Task: propose") != std::string::npos) {
      if (prompt.find("round 1 of") != std::string::npos && ++r1_attempts_ == 1)
        return kb::testing::json_response(503, std::string(R"({"error":{"message":"upstream overloaded for key )") +
                                                   kKey + R"(","type":"server_error"}})");
      if (prompt.find("round 2 of") != std::string::npos)
        return kb::testing::json_response(502, R"({"error":{"message":"bad gateway","code":"502"}})");
      const std::string idea = prompt.find("round 1 of") != std::string::npos ? "vectorize" : "unroll by four";
      return kb::testing::json_response(200, reasoning_model_body(
                                                 "[{\"text\": \"" + idea +
                                                 "\", \"family\": \"memory_access\", \"rationale\": \"r\"}]"));
    }
    if (prompt.find("variant 2 of") != std::string::npos)
      return kb::testing::json_response(500, R"({"error":{"message":"internal error"}})");
    const std::string time = prompt.find("unroll by four") != std::string::npos ? "25" : "50";
    return kb::testing::json_response(200, llama_cpp_body("```cuda\n// SIM_TIME=" + time +
                                                          "\nvoid launch_k(float* y, int n) {\n}\n```"));
  }

 private:
  std::mutex mutex_;
  int r1_attempts_ = 0;
};

void configure(TestProject& p, const LoopbackHttpServer& server) {
  setenv("KB_TEST_RECORD_KEY", kKey, 1);
  p.config.llm.provider = "openai-compatible";
  p.config.llm.base_url = server.base_url();
  p.config.llm.model = "o3-mini";
  p.config.llm.api_key_env = "KB_TEST_RECORD_KEY";
  p.config.llm.max_retries = 1;
  p.config.llm.repair_attempts = 0;
  p.config.search.rounds = 3;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 2;
  p.config.search.min_round_gain = 0.01;
  p.config.search.patience = 1;  // a flat round would stop the search; a lost one must not
}

SearchResult search_with(TestProject& p, Proposer& proposer) {
  SimulatedEvaluator e;
  SearchRequest req{&p.config, &p.spec(), &e, {}, &proposer, nullptr, {}};
  return run_search(req);
}

std::vector<nlohmann::json> lines_of(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace

TEST(Recording, KeepsFullPromptsFailedAttemptsAndFailedExchangesWithTheKeyRedacted) {
  TestProject p;
  Model model;
  LoopbackHttpServer server([&model](const LoopbackRequest& r) { return model(r); });
  configure(p, server);
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  options.record_file = p.root / "run.jsonl";
  auto proposer = make_proposer(p.config, p.spec(), options);
  auto result = search_with(p, *proposer);

  // Round 2 was lost, not flat: with patience 1 the search still ran round 3, which gained.
  EXPECT_EQ(result.rounds_run, 3);
  EXPECT_EQ(result.stop, SearchStop::rounds_done);
  EXPECT_EQ(result.stop_reason.rfind("rounds done; round 2 lost to protocol errors (the ideas request failed: ", 0), 0u)
      << result.stop_reason;
  ASSERT_NE(result.find("r3-i0-b0"), nullptr);
  EXPECT_EQ(result.best_id, "r3-i0-b0");
  EXPECT_EQ(result.find("r1-i0-b0")->variant.source.find("<think>"), std::string::npos);  // reasoning is not code

  const std::string text = [&] {
    std::ifstream in(p.root / "run.jsonl");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  EXPECT_EQ(text.find(kKey), std::string::npos) << "the key reached the recording";

  auto lines = lines_of(p.root / "run.jsonl");
  std::map<std::string, nlohmann::json> exchanges;  // "step key" -> its line
  std::vector<nlohmann::json> attempts;
  for (const auto& l : lines) {
    if (l.contains("failed_attempt")) attempts.push_back(l);
    else if (l.contains("key")) exchanges[l["step"].get<std::string>() + " " + l["key"].get<std::string>()] = l;
  }
  // The 503 before round 1's ideas came, with its status and (redacted) body.
  bool saw_503 = false;
  for (const auto& a : attempts)
    if (a["key"] == "r1" && a["failed_attempt"]["status"] == 503) {
      saw_503 = true;
      EXPECT_NE(a["failed_attempt"]["body"].get<std::string>().find("upstream overloaded for key [REDACTED]"),
                std::string::npos)
          << a.dump();
    }
  EXPECT_TRUE(saw_503);
  // Branch 2 failed for good: two 500s, then the exchange's error in place of a reply.
  ASSERT_TRUE(exchanges.count("implement r1-i0-b1"));
  const auto& failed = exchanges["implement r1-i0-b1"];
  EXPECT_FALSE(failed.contains("reply"));
  EXPECT_EQ(failed["error"]["kind"], "service");
  EXPECT_NE(failed["error"]["message"].get<std::string>().find("HTTP 500: internal error"), std::string::npos);
  int fives = 0;
  for (const auto& a : attempts) fives += a["key"] == "r1-i0-b1" && a["failed_attempt"]["status"] == 500;
  EXPECT_EQ(fives, 2);
  ASSERT_TRUE(exchanges.count("ideas r2"));
  EXPECT_NE(exchanges["ideas r2"]["error"]["message"].get<std::string>().find("HTTP 502"), std::string::npos);
  // Every exchange with its whole prompt, as the server received it.
  ASSERT_TRUE(exchanges.count("implement r1-i0-b0"));
  const auto& ok = exchanges["implement r1-i0-b0"];
  std::string sent;
  for (const auto& r : server.requests()) {
    auto body = nlohmann::json::parse(r.body);
    std::string user = body["messages"].back()["content"];
    if (user.find("variant 1 of") != std::string::npos &&
        user.find("## The idea to implement\nvectorize (family") != std::string::npos)
      sent = user;
  }
  ASSERT_EQ(ok["prompt"].size(), 2u);
  EXPECT_EQ(ok["prompt"][0]["role"], "system");
  EXPECT_EQ(ok["prompt"][1]["content"], sent);
  EXPECT_EQ(ok["reasoning"], "The tail must stay scalar.");
  EXPECT_EQ(exchanges["ideas r1"]["usage"]["completion_tokens"], 1046);
}

TEST(Recording, ARecordingWithFailuresReplaysToTheSameTreeAndTheSameLostRound) {
  TestProject p;
  Model model;
  LoopbackHttpServer server([&model](const LoopbackRequest& r) { return model(r); });
  configure(p, server);
  ProposerOptions record;
  record.retry = RetryPolicy{0.01, 0.05, 5};
  record.record_file = p.root / "run.jsonl";
  auto live = make_proposer(p.config, p.spec(), record);
  auto first = search_with(p, *live);
  const size_t asked = server.requests().size();

  ProposerOptions replay;
  replay.name = "replay";
  replay.replay_file = p.root / "run.jsonl";
  auto replayed = make_proposer(p.config, p.spec(), replay);
  auto second = search_with(p, *replayed);
  EXPECT_EQ(server.requests().size(), asked);
  ASSERT_EQ(first.tree.size(), second.tree.size());
  for (size_t i = 0; i < first.tree.size(); ++i) {
    EXPECT_EQ(first.tree[i].id, second.tree[i].id);
    EXPECT_EQ(first.tree[i].verdict(), second.tree[i].verdict()) << first.tree[i].id;
    EXPECT_EQ(first.tree[i].reason(), second.tree[i].reason()) << first.tree[i].id;
  }
  EXPECT_EQ(first.stop_reason, second.stop_reason);
  EXPECT_EQ(second.rounds_run, 3);
  auto file = read_replay_file(p.root / "run.jsonl");
  EXPECT_GE(file.failed_attempts.size(), 4u);  // the 503, two 500s, two 502s
}

TEST(Recording, AWrongKeyStillStopsTheSearchAtOnceAndIsRecorded) {
  TestProject p;
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return kb::testing::json_response(
        401,
        R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})");
  });
  configure(p, server);
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  options.record_file = p.root / "run.jsonl";
  auto proposer = make_proposer(p.config, p.spec(), options);
  auto result = search_with(p, *proposer);
  EXPECT_EQ(result.stop, SearchStop::proposer_failed);  // not a lost round: every later request would fail too
  EXPECT_EQ(result.rounds_run, 0);
  EXPECT_EQ(server.requests().size(), 1u);  // not retried
  auto lines = lines_of(p.root / "run.jsonl");
  bool recorded = false;
  for (const auto& l : lines)
    if (l.value("key", "") == "r1" && l.contains("error")) {
      recorded = true;
      EXPECT_EQ(l["error"]["kind"], "configuration");
      EXPECT_NE(l["error"]["message"].get<std::string>().find("HTTP 401"), std::string::npos) << l.dump();
    }
  EXPECT_TRUE(recorded);
}
