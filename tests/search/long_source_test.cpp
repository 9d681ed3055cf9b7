// A file too long for the model's context: a loopback server that behaves as vLLM started with
// a small --max-model-len refuses the prompt that shows the whole file; the proposer asks again
// with the launcher's excerpt, the model writes the launcher and its kernel only, and the reply
// is spliced into the file, so the verified candidate is the whole file with one kernel changed.
// The recording of that run replays to the same candidate.
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>

#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "search/llm/openai_chat_client.h"
#include "search/llm/prompt_source.h"
#include "search/llm/token_ledger.h"
#include "tests/search/openai_wire.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::LoopbackHttpServer;
using kb::testing::LoopbackRequest;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

constexpr int64_t kServerContext = 4096;

// A file of many unrelated kernels with the one being optimized in the middle.
std::string long_file() {
  std::string text = "#include <cuda_runtime.h>\n\n#ifndef K_BLOCK\n#define K_BLOCK 128\n#endif\n\n";
  auto unrelated = [](int i) {
    const std::string n = std::to_string(i);
    return "// Unrelated kernel " + n + ": adds " + n + " to every element, one element per thread.\n" +
           "__global__ void unrelated_" + n +
           "(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + "  if (i < n) x[i] += " + n +
           ".0f;\n}\n\nvoid launch_unrelated_" + n + "(float* x, int n) {\n  unrelated_" + n +
           "<<<(n + 255) / 256, 256>>>(x, n);\n}\n\n";
  };
  for (int i = 0; i < 40; ++i) text += unrelated(i);
  text += "// y = 2 * y. SIM_TIME=100 is what the simulated GPU times the original at.\n"
          "__global__ void scale_kernel(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i < n) y[i] *= 2.0f;\n}\n\n"
          "void launch_k(float* y, int n) { scale_kernel<<<(n + K_BLOCK - 1) / K_BLOCK, K_BLOCK>>>(y, n); }\n\n";
  for (int i = 40; i < 60; ++i) text += unrelated(i);
  return text;
}

// What the model writes when shown the excerpt: the kernel and the launcher, nothing else.
const std::string kFastReply =
    "__global__ void scale_kernel(float* y, int n) {\n  // FAST_PATH: a grid-stride loop\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] *= 2.0f;\n}\n\n"
    "void launch_k(float* y, int n) { scale_kernel<<<(n + K_BLOCK - 1) / K_BLOCK, K_BLOCK>>>(y, n); }\n";

std::string last_user_prompt(const LoopbackRequest& r) {
  return nlohmann::json::parse(r.body)["messages"].back()["content"].get<std::string>();
}

int64_t prompt_tokens_of(const LoopbackRequest& r) {
  size_t chars = 0;
  const auto body = nlohmann::json::parse(r.body);
  for (const auto& m : body["messages"]) chars += m["content"].get<std::string>().size();
  return static_cast<int64_t>(chars / 4);
}

// vLLM with --max-model-len 4096: its refusals word for word, then a model that answers the
// task in the prompt.
kb::testing::LoopbackResponse small_context_model(const LoopbackRequest& r) {
  const int64_t prompt = prompt_tokens_of(r);
  const int64_t wanted = nlohmann::json::parse(r.body)["max_tokens"].get<int64_t>();
  auto refusal = [](const std::string& message) {
    return kb::testing::json_response(400, nlohmann::json{{"object", "error"},
                                                          {"message", message},
                                                          {"type", "BadRequestError"},
                                                          {"param", nullptr},
                                                          {"code", 400}}
                                               .dump());
  };
  if (prompt > kServerContext)
    return refusal("This model's maximum context length is 4096 tokens. However, your request has " +
                   std::to_string(prompt) + " input tokens. Please reduce the length of the input messages. None");
  if (prompt + wanted > kServerContext)
    return refusal("'max_tokens' or 'max_completion_tokens' is too large: " + std::to_string(wanted) +
                   ". This model's maximum context length is 4096 tokens and your request has " +
                   std::to_string(prompt) + " input tokens (" + std::to_string(wanted) + " > 4096 - " +
                   std::to_string(prompt) + "). None");
  const std::string user = last_user_prompt(r);
  auto reply = [](const std::string& content) {
    return kb::testing::json_response(200, kb::testing::completion_body({{"role", "assistant"}, {"content", content}}));
  };
  if (user.find("# Task: propose") != std::string::npos)
    return reply(
        R"([{"text": "grid-stride loop", "family": "memory_access", "rationale": "fewer blocks", "seed": "baseline"}])");
  if (user.find("# Task: implement") != std::string::npos) return reply("```cuda\n" + kFastReply + "```\n");
  return kb::testing::json_response(400, R"({"error":{"message":"unexpected prompt"}})");
}

void configure(TestProject& p, const LoopbackHttpServer& server) {
  p.config.llm.provider = "openai-compatible";
  p.config.llm.base_url = server.base_url() + "/v1";
  p.config.llm.model = "Qwen/Qwen2.5-Coder-7B-Instruct";
  p.config.llm.api_key_env = "";
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
}

SearchResult search_once(TestProject& p, Proposer& proposer) {
  SimulatedEvaluator gpu([](const Variant& v) {
    kb::testing::SimBehaviour b;
    b.time_us = v.source.find("FAST_PATH") != std::string::npos ? 50 : 100;
    return b;
  });
  return run_search(kb::testing::request_for(p, gpu, proposer));
}

// The original with scale_kernel's and launch_k's definitions replaced by the reply's (the
// kernel's comment goes with its old definition, as the PR splicer does).
std::string expected_candidate(const std::string& original) {
  const size_t begin = original.find("// y = 2 * y.");
  const size_t end = original.find("\n\n// Unrelated kernel 40") + 1;
  return original.substr(0, begin) + kFastReply + original.substr(end);
}

}  // namespace

TEST(LongSource, TooLongForTheContextTheModelIsAskedForTheLauncherAndItsKernelsOnly) {
  const std::string original = long_file();
  ASSERT_LT(original.size(), kWholeSourceMaxChars);  // shown whole until the server refuses it
  ASSERT_GT(static_cast<int64_t>(original.size() / 4), kServerContext);
  TestProject p(original);
  LoopbackHttpServer server(small_context_model);
  configure(p, server);
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  options.record_file = p.root / "long.jsonl";
  auto proposer = make_proposer(p.config, p.spec(), options);
  SearchResult result = search_once(p, *proposer);

  const auto* winner = result.best();
  ASSERT_NE(winner, nullptr) << result.stop_reason;
  EXPECT_EQ(result.best_id, "r1-i0-b0");
  EXPECT_EQ(winner->verdict(), Verdict::accepted);
  EXPECT_DOUBLE_EQ(winner->speedup(), 2.0);
  // The whole file, every unrelated kernel byte-identical, the reply's kernel in place.
  EXPECT_EQ(winner->variant.source, expected_candidate(original));

  // The first prompt showed the whole file and was refused; every later one showed the excerpt.
  auto seen = server.requests();
  ASSERT_GE(seen.size(), 3u);
  EXPECT_NE(last_user_prompt(seen[0]).find("unrelated_59"), std::string::npos);
  bool implement_seen = false;
  for (size_t i = 1; i < seen.size(); ++i) {
    const std::string user = last_user_prompt(seen[i]);
    EXPECT_EQ(user.find("unrelated_"), std::string::npos) << user;
    EXPECT_NE(user.find("the rest of the file is unchanged and not shown"), std::string::npos) << user;
    if (user.find("# Task: implement") == std::string::npos) continue;
    implement_seen = true;
    EXPECT_NE(user.find("Reply with the launcher, the kernels it launches and any new helpers"), std::string::npos);
    EXPECT_NE(user.find("#define K_BLOCK 128"), std::string::npos) << user;  // what the kernel reads
    const std::string system = nlohmann::json::parse(seen[i].body)["messages"][0]["content"];
    EXPECT_NE(system.find("nothing else of the file"), std::string::npos) << system;
  }
  EXPECT_TRUE(implement_seen);

  // The recording says what happened, and replays to the same candidate without the server.
  const size_t asked = server.requests().size();
  ProposerOptions replay;
  replay.name = "replay";
  replay.replay_file = p.root / "long.jsonl";
  auto replayed = make_proposer(p.config, p.spec(), replay);
  SearchResult again = search_once(p, *replayed);
  EXPECT_EQ(server.requests().size(), asked);
  ASSERT_NE(again.best(), nullptr) << again.stop_reason;
  EXPECT_EQ(again.best()->variant.source, winner->variant.source);
}

TEST(LongSource, TheClientSaysThePromptIsTooLongAndRemembersTheContext) {
  LoopbackHttpServer llama([](const LoopbackRequest&) {
    return kb::testing::json_response(
        400,
        R"({"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}})");
  });
  auto llm = kb::testing::llm_for(llama, "qwen2.5-coder");
  llm.api_key_env = "";
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), kb::testing::fast_retries());
  EXPECT_FALSE(client.context_tokens());
  try {
    client.complete(kb::testing::hello());
    FAIL() << "expected the prompt to be refused";
  } catch (const PromptTooLong& e) {
    EXPECT_EQ(e.kind, ChatFailure::configuration);  // what it is when nothing shorter can be asked
    EXPECT_EQ(e.context, 8192);
  }
  EXPECT_EQ(client.context_tokens(), 8192);
  EXPECT_EQ(llama.requests().size(), 1u);
}

TEST(PromptSource, TheRuleTheExcerptAndTheSpliceBack) {
  EXPECT_FALSE(too_long_for_prompt(10'000, 0));
  EXPECT_TRUE(too_long_for_prompt(kWholeSourceMaxChars + 1, 0));  // a prompt would cut it
  EXPECT_FALSE(too_long_for_prompt(16'000, 16'000));              // 4,000 tokens: a quarter of 16k
  EXPECT_TRUE(too_long_for_prompt(16'008, 16'000));
  EXPECT_TRUE(too_long_for_prompt(4'100, 4'096));

  const std::string original = long_file();
  SourceView whole{false, "k.cu", "launch_k"};
  EXPECT_EQ(shown_source(whole, original), original);
  EXPECT_EQ(whole_source(whole, original, kFastReply), kFastReply);
  SourceView excerpt{true, "k.cu", "launch_k"};
  const std::string shown = shown_source(excerpt, original);
  EXPECT_EQ(shown,
            "#include <cuda_runtime.h>\n#ifndef K_BLOCK\n#define K_BLOCK 128\n#endif\n\n"
            "// y = 2 * y. SIM_TIME=100 is what the simulated GPU times the original at.\n"
            "__global__ void scale_kernel(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) y[i] *= 2.0f;\n}\n\n"
            "void launch_k(float* y, int n) { scale_kernel<<<(n + K_BLOCK - 1) / K_BLOCK, K_BLOCK>>>(y, n); }\n");
  EXPECT_EQ(whole_source(excerpt, original, kFastReply), expected_candidate(original));
  // A changed knob default in the reply edits the file's #define in place.
  std::string tuned = whole_source(excerpt, original, "#define K_BLOCK 512\n" + kFastReply);
  EXPECT_NE(tuned.find("#ifndef K_BLOCK\n#define K_BLOCK 512\n#endif\n"), std::string::npos);
  EXPECT_EQ(tuned.find("#define K_BLOCK 128"), std::string::npos);
  EXPECT_THROW(whole_source(excerpt, original, "__global__ void scale_kernel(float* y, int n) {}\n"),
               std::runtime_error);
  // Without the launcher in the file there is nothing shorter to show.
  SourceView lost{true, "k.cu", "launch_missing"};
  EXPECT_EQ(shown_source(lost, original), original);
}

TEST(LongSource, AConfiguredContextShowsTheExcerptFromTheFirstPromptAndNoLimitIsRefused) {
  // The same server, with [llm].context_tokens saying what it was started with: the file (over a
  // quarter of the context) is shown as the excerpt from the first prompt, and every reply limit
  // fits what the prompt leaves, so the server never has to refuse one.
  const std::string original = long_file();
  TestProject p(original);
  LoopbackHttpServer server(small_context_model);
  configure(p, server);
  p.config.llm.context_tokens = kServerContext;
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  auto proposer = make_proposer(p.config, p.spec(), options);
  SearchResult result = search_once(p, *proposer);
  ASSERT_NE(result.best(), nullptr) << result.stop_reason;
  EXPECT_EQ(result.best()->variant.source, expected_candidate(original));
  auto seen = server.requests();
  ASSERT_GE(seen.size(), 2u);
  for (const auto& r : seen) {
    EXPECT_EQ(last_user_prompt(r).find("unrelated_"), std::string::npos);
    const int64_t limit = nlohmann::json::parse(r.body)["max_tokens"].get<int64_t>();
    EXPECT_LE(prompt_tokens_of(r) + limit, kServerContext);
    EXPECT_GE(limit, 1024);
  }
}

TEST(LongSource, AConfiguredContextCapsTheReplyLimitAndAPromptWithNoRoomIsNeverSent) {
  int refusals = 0;
  LoopbackHttpServer llama([&refusals](const LoopbackRequest& r) {
    const int64_t wanted = nlohmann::json::parse(r.body)["max_tokens"].get<int64_t>();
    if (prompt_tokens_of(r) + wanted > 8192) {
      ++refusals;
      return kb::testing::json_response(
          400,
          R"({"error":{"code":400,"message":"request exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":10,"n_ctx":8192}})");
    }
    return kb::testing::json_response(200, kb::testing::completion_body({{"role", "assistant"}, {"content", "ok"}}));
  });
  auto llm = kb::testing::llm_for(llama, "qwen2.5-coder");
  llm.api_key_env = "";
  llm.context_tokens = 8192;
  OpenAiChatClient client(llm, std::make_shared<TokenLedger>(0, 0, 0, 0), kb::testing::fast_retries());
  EXPECT_EQ(client.context_tokens(), 8192);  // known before any request
  EXPECT_EQ(client.complete(kb::testing::hello(32768)).content, "ok");
  ASSERT_EQ(llama.requests().size(), 1u);
  EXPECT_EQ(refusals, 0);
  EXPECT_LE(nlohmann::json::parse(llama.requests()[0].body)["max_tokens"].get<int64_t>(), 8192 - 16);

  // A prompt that leaves less than a reply needs: refused here, naming the setting, never sent.
  ChatRequest huge = kb::testing::hello(32768);
  huge.messages[1].content = std::string(30'000, 'k');
  try {
    client.complete(huge);
    FAIL() << "expected PromptTooLong";
  } catch (const PromptTooLong& e) {
    EXPECT_EQ(e.context, 8192);
    EXPECT_NE(std::string(e.what()).find("[llm].context_tokens"), std::string::npos) << e.what();
  }
  EXPECT_EQ(llama.requests().size(), 1u);
}

namespace {

// A short file whose first winner grows past what a prompt shows whole: the model's round-1 file
// carries many helper kernels of its own (as models do when they specialize per size).
const std::string kShortOriginal =
    "#include <cuda_runtime.h>\n\n"
    "// y = 2 * y. SIM_TIME=100 is what the simulated GPU times the original at.\n"
    "__global__ void scale_kernel(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] *= 2.0f;\n}\n\n"
    "void launch_k(float* y, int n) { scale_kernel<<<(n + 127) / 128, 128>>>(y, n); }\n";

std::string grown_seed() {
  std::string text = "#include <cuda_runtime.h>\n\n";
  for (int i = 0; text.size() < kWholeSourceMaxChars + 4000; ++i) {
    const std::string n = std::to_string(i);
    text += "// Specialized helper " + n +
            " for a size class the launcher does not use yet; kept for later.\n"
            "__global__ void helper_" +
            n +
            "(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) y[i] = y[i] * 2.0f + 0.0f * " +
            n + ".0f;\n}\n\n";
  }
  text += "// SIM_TIME=80 after round 1.\n"
          "__global__ void scale_kernel(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i < n) y[i] *= 2.0f;\n}\n\n"
          "void launch_k(float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(y, n); }\n";
  return text;
}

// Round 2's reply to the grown seed's excerpt: the launcher and its kernel only.
const std::string kRound2Reply =
    "__global__ void scale_kernel(float* y, int n) {\n  // SIM_TIME=40 round 2\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] *= 2.0f;\n}\n\n"
    "void launch_k(float* y, int n) { scale_kernel<<<264, 256>>>(y, n); }\n";

}  // namespace

TEST(LongSource, ASeedThatGrewPastThePromptIsShownAsItsExcerptNeverCut) {
  const std::string seed = grown_seed();
  ASSERT_GT(seed.size(), kWholeSourceMaxChars);
  TestProject p(kShortOriginal);
  std::vector<std::string> implement_prompts;
  std::mutex mutex;
  LoopbackHttpServer server([&](const LoopbackRequest& r) {
    const std::string user = last_user_prompt(r);
    auto reply = [](const std::string& content) {
      return kb::testing::json_response(200,
                                        kb::testing::completion_body({{"role", "assistant"}, {"content", content}}));
    };
    if (user.find("# Task: propose") != std::string::npos)
      return reply(R"([{"text": "wider blocks", "family": "parallelism", "rationale": "occupancy"}])");
    if (user.find("# Task: implement") == std::string::npos)
      return kb::testing::json_response(400, R"({"error":{"message":"unexpected prompt"}})");
    std::lock_guard<std::mutex> lock(mutex);
    implement_prompts.push_back(user);
    return implement_prompts.size() == 1 ? reply("```cuda\n" + seed + "```\n")
                                         : reply("```cuda\n" + kRound2Reply + "```\n");
  });
  configure(p, server);
  p.config.search.rounds = 2;
  p.config.search.patience = 0;
  ProposerOptions options;
  options.retry = RetryPolicy{0.01, 0.05, 5};
  auto proposer = make_proposer(p.config, p.spec(), options);
  SimulatedEvaluator gpu([](const Variant& v) {
    kb::testing::SimBehaviour b;
    b.time_us = v.source.find("SIM_TIME=40") != std::string::npos   ? 40
                : v.source.find("SIM_TIME=80") != std::string::npos ? 80
                                                                    : 100;
    return b;
  });
  SearchResult result = run_search(kb::testing::request_for(p, gpu, *proposer));

  ASSERT_EQ(implement_prompts.size(), 2u) << result.stop_reason;
  // Round 1 showed the short original whole and asked for the complete file.
  EXPECT_NE(implement_prompts[0].find("the complete translation unit"), std::string::npos);
  // Round 2's seed is the grown file: shown as its launcher's excerpt, never cut, and the model
  // asked for the launcher and its kernels only.
  const std::string& second = implement_prompts[1];
  EXPECT_EQ(second.find("characters cut"), std::string::npos) << second.substr(0, 2000);
  EXPECT_EQ(second.find("helper_3("), std::string::npos);
  EXPECT_NE(second.find("the rest of the file is unchanged and not shown"), std::string::npos);
  EXPECT_NE(second.find("Reply with the launcher, the kernels it launches and any new helpers"), std::string::npos);
  // The reply is spliced into the grown seed: its helpers stay, its kernel and launcher are new.
  const auto* winner = result.best();
  ASSERT_NE(winner, nullptr) << result.stop_reason;
  EXPECT_EQ(winner->round, 2);
  EXPECT_NE(winner->variant.source.find("helper_3("), std::string::npos);
  EXPECT_NE(winner->variant.source.find("scale_kernel<<<264, 256>>>"), std::string::npos);
  EXPECT_EQ(winner->variant.source.find("scale_kernel<<<(n + 255) / 256, 256>>>"), std::string::npos);
}
