// The replays shipped for the demo (examples/replays/*.jsonl): every reply parses as the
// engine will parse it, passes the candidate source policy (so the GPU runs that replay them
// reach nvcc), its code compiles with the real nvcc (the broken one fails as intended),
// and saxpy's drives a whole search with its scripted failures. That every replay reaches its
// crossover in either order of round 2 is shipped_replay_search_test.cpp's business.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>

#include "config/config_loader.h"
#include "cuda_source/policy/candidate_policy.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "search/llm/replay_log.h"
#include "search/llm/reply_parser.h"
#include "tests/search/simulated_evaluator.h"

using namespace kb;
using namespace kb::search;

namespace {

const std::filesystem::path kReplay = KB_SOURCE_DIR "/examples/replays/saxpy.jsonl";

// Compiles `code` as examples/src/saxpy.cu would be; returns nvcc's exit status and output.
std::pair<int, std::string> nvcc_compile(const std::string& code, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("kb_replay_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto src = dir / (name + ".cu");
  std::ofstream(src) << code;
  std::string cmd = std::string(KB_NVCC) + " -std=c++17 " + KB_NVCC_ARCH_FLAG +
                    " -I" KB_SOURCE_DIR "/examples/include -c " + src.string() + " -o " +
                    (dir / (name + ".o")).string() + " 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  int status = pipe ? pclose(pipe) : -1;
  std::error_code ec;
  std::filesystem::remove(src, ec);
  std::filesystem::remove(dir / (name + ".o"), ec);
  return {status, out};
}

}  // namespace

TEST(ShippedReplay, EveryReplyParsesAndItsCodeCompilesWithNvcc) {
  auto file = read_replay_file(kReplay);
  EXPECT_EQ(file.header["kernel"], "saxpy");
  EXPECT_EQ(file.header["model"], "hand-written");  // it says what it is
  std::vector<std::pair<std::string, std::future<std::pair<int, std::string>>>> compiles;
  int ideas = 0, truncated = 0;
  for (const auto& e : file.entries) {
    if (e.step == "ideas") {
      auto parsed = parse_ideas(e.reply);
      ASSERT_TRUE(parsed.ok()) << e.key;
      EXPECT_EQ(parsed.ideas.size(), 2u);
      ++ideas;
      continue;
    }
    auto code = extract_code(e.reply, e.finish_reason, "launch_saxpy");
    if (e.key == "r1-i1-b2") {  // the truncated reply
      EXPECT_FALSE(code.ok());
      ++truncated;
      continue;
    }
    ASSERT_TRUE(code.ok()) << e.step << " " << e.key << ": " << code.failure;
    EXPECT_NE(code.code.find("float4"), std::string::npos) << e.key;
    std::string name = e.step + "_" + e.key;
    compiles.emplace_back(e.step + " " + e.key,
                          std::async(std::launch::async, [c = code.code, name] { return nvcc_compile(c, name); }));
  }
  EXPECT_EQ(ideas, 1);
  EXPECT_EQ(truncated, 1);
  ASSERT_EQ(compiles.size(), 9u);
  for (auto& [what, f] : compiles) {
    auto [status, out] = f.get();
    if (what == "implement r1-i1-b0") {  // the deliberate compile error, repaired under key repair r1-i1-b0
      EXPECT_NE(status, 0);
      EXPECT_NE(out.find("no operator \"*\""), std::string::npos) << out;
    } else {
      EXPECT_EQ(status, 0) << what << ":\n" << out;
    }
  }
}

TEST(ShippedReplay, DrivesAWholeSearchOnTheExamplesConfig) {
  auto config = config::load_config(KB_SOURCE_DIR "/examples/kernelbot.toml");
  const auto& spec = *config.find_kernel("saxpy");
  // The simulated GPU judges the code the way the real one would: float4 code is faster, code
  // without the scalar tail is wrong for n = 1000003, arithmetic on float4 does not compile.
  kb::testing::SimulatedEvaluator gpu([](const Variant& v) {
    kb::testing::SimBehaviour b;
    b.compile_error = v.source.find("a * xa + ya") != std::string::npos;
    bool vectorized = v.source.find("float4") != std::string::npos;
    b.wrong = vectorized && v.source.find("const int tail") == std::string::npos;
    b.time_us = vectorized ? 80 : 320;
    return b;
  });
  ProposerOptions options;
  options.name = "replay";
  options.replay_file = kReplay;
  auto proposer = make_proposer(config, spec, options);
  SearchRequest req{&config, &spec, &gpu, {}, proposer.get(), nullptr, {}};
  auto result = run_search(req);
  EXPECT_EQ(result.find("r1-i0-b0")->verdict(), Verdict::accepted);
  EXPECT_EQ(result.find("r1-i0-b2")->verdict(), Verdict::wrong_result);
  EXPECT_EQ(result.find("r1-i1-b0")->verdict(), Verdict::compile_error);
  EXPECT_EQ(result.find("r1-i1-b0-fix1")->verdict(), Verdict::accepted);
  EXPECT_NE(result.find("r1-i1-b2")->reason().find("finish_reason \"length\""), std::string::npos);
  ASSERT_NE(result.find("r2-i1-b0"), nullptr);
  EXPECT_EQ(result.find("r2-i1-b0")->idea.family, "crossover");
  EXPECT_EQ(result.find("r2-i1-b0")->verdict(), Verdict::accepted);
  EXPECT_EQ(result.find("r2-i0-b0")->idea.text.rfind("Tune the knobs", 0), 0u);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_NE(result.best()->variant.source.find("float4"), std::string::npos);
  EXPECT_EQ(result.budget.prompt_tokens + result.budget.completion_tokens, 0);
}

// The replays shipped for the other example kernels: every reply parses and compiles, without
// saxpy's scripted failures.
class ShippedKernelReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedKernelReplay, EveryReplyParsesAndCompilesWithNvcc) {
  const std::string kernel = GetParam();
  auto file = read_replay_file(KB_SOURCE_DIR "/examples/replays/" + kernel + ".jsonl");
  EXPECT_EQ(file.header["kernel"], kernel);
  EXPECT_EQ(file.header["model"], "hand-written");
  std::vector<std::pair<std::string, std::future<std::pair<int, std::string>>>> compiles;
  for (const auto& e : file.entries) {
    if (e.step == "ideas") {
      auto parsed = parse_ideas(e.reply);
      ASSERT_TRUE(parsed.ok()) << e.key;
      EXPECT_EQ(parsed.ideas.size(), 2u);
      continue;
    }
    auto code = extract_code(e.reply, e.finish_reason, "launch_" + kernel);
    ASSERT_TRUE(code.ok()) << e.step << " " << e.key << ": " << code.failure;
    std::string name = kernel + "_" + e.step + "_" + e.key;
    compiles.emplace_back(e.key,
                          std::async(std::launch::async, [c = code.code, name] { return nvcc_compile(c, name); }));
  }
  ASSERT_EQ(compiles.size(), 7u);  // two ideas, three branches each, and one crossover
  for (auto& [what, f] : compiles) {
    auto [status, out] = f.get();
    EXPECT_EQ(status, 0) << kernel << " " << what << ":\n" << out;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ShippedKernelReplay, ::testing::Values("transpose", "row_sum", "layernorm"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

// Every shipped reply is what an honest model writes: the candidate source policy lets it through
// against its kernel's original, as the compiler will in a replayed search.
TEST(ShippedReplay, EveryReplyPassesTheCandidateSourcePolicy) {
  namespace fs = std::filesystem;
  const auto config = config::load_config(KB_SOURCE_DIR "/examples/kernelbot.toml");
  int checked = 0;
  for (const std::string kernel : {"saxpy", "transpose", "row_sum", "layernorm"}) {
    const auto* spec = config.find_kernel(kernel);
    ASSERT_NE(spec, nullptr) << kernel;
    const fs::path source = config.resolve(spec->source);
    std::ifstream in(source);
    const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(original.empty()) << source;
    cuda_source::IncludeScope scope;
    scope.repository = fs::path(KB_SOURCE_DIR) / "examples";
    scope.source_dir = source.parent_path();
    for (const auto& d : config.project.include_dirs) scope.include_dirs.push_back(config.resolve(d));
    for (const auto& e : read_replay_file(KB_SOURCE_DIR "/examples/replays/" + kernel + ".jsonl").entries) {
      if (e.step == "ideas") continue;
      auto code = extract_code(e.reply, e.finish_reason, spec->launcher);
      if (!code.ok()) continue;  // saxpy's truncated reply
      const auto violations = cuda_source::candidate_policy_violations(code.code, original, scope);
      EXPECT_TRUE(violations.empty()) << kernel << " " << e.step << " " << e.key << ": "
                                      << cuda_source::policy_refusal_log(violations);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9 + 3 * 7);
}
