// On a GPU (label gpu): each README [llm] block drives the real binary, `kernelbot search` and
// `kernelbot run --dry-run`, on a git copy of examples/ to a verified saxpy faster than the
// original, against a loopback server of its family of endpoint (tests/support/model_families.h)
// whose model answers the ideas prompt with one idea and every implementation prompt with the
// shipped saxpy replay's vectorized winner. The block is the README's own, its base_url moved to
// the server (path and query kept) and its key variable set: what a user copies is what runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/bot/git_fixture.h"
#include "tests/support/kernelbot_process.h"
#include "tests/support/model_families.h"
#include "tests/support/readme_llm_blocks.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kFamilyKey = "sk-family-gpu-7f3a";

// A small budget: one round; the model gives one idea, and its branches all answer the same code.
const std::string kBudget = " --kernel saxpy --rounds 1 --max-candidates 3 --no-archive";

class ModelFamilyOnGpu : public ::testing::TestWithParam<ModelFamily> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_family_gpu_" + std::to_string(getpid()) + "_" + family_name(GetParam()));
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // The README's block for this family; empty (and a failure) when the README has none.
  std::string readme_block() {
    auto block = readme_llm_block(read_text(fs::path(KB_SOURCE_DIR) / "README.md"), GetParam());
    if (!block) ADD_FAILURE() << "README.md has no block titled \"" << readme_block_title(GetParam()) << "\"";
    return block.value_or("");
  }

  // The server's options: Azure's deployment and api-version are those the block's URL names, and
  // a local server's context is the one the block names, if it names one.
  FamilyOptions options_for(const std::string& block) {
    FamilyOptions options;
    options.key = kFamilyKey;
    if (GetParam() == ModelFamily::local)
      options.n_ctx = toml_integer_value(block, "context_tokens").value_or(options.n_ctx);
    if (GetParam() == ModelFamily::azure) {
      auto azure = azure_deployment_of(toml_string_value(block, "base_url").value_or(""));
      if (!azure) ADD_FAILURE() << "the Azure block's base_url names no deployment:\n" << block;
      if (azure) {
        options.deployment = azure->deployment;
        options.api_version = azure->api_version;
      }
    }
    return options;
  }

  // The examples' file with the block appended, pointed at `server`; a git repository, as a
  // user's is.
  void prepare(const std::string& block, const LoopbackHttpServer& server) {
    std::string toml = read_text(repo_ / "kernelbot.toml");
    toml += "\n" + with_base_url_at(block, server.base_url());
    write_text(repo_ / "kernelbot.toml", toml);
    init_repo_with_commit(repo_);
  }

  // The variable the block reads its key from, set to the key the server wants ("" for none).
  static std::string key_environment(const std::string& block) {
    const std::string variable = toml_string_value(block, "api_key_env").value_or("OPENAI_API_KEY");
    return variable.empty() ? "" : variable + "=" + kFamilyKey;
  }

  fs::path dir_, repo_;
};

const nlohmann::json* candidate(const nlohmann::json& result, const std::string& id) {
  for (const auto& c : result["tree"])
    if (c["id"] == id) return &c;
  return nullptr;
}

TEST_P(ModelFamilyOnGpu, SearchAndRunReachAVerifiedFasterSaxpy) {
  const ModelFamily family = GetParam();
  const std::string block = readme_block();
  ASSERT_FALSE(block.empty());
  const FamilyOptions options = options_for(block);
  const std::string winner = replay_reply_code(fs::path(KB_SOURCE_DIR) / "examples/replays/saxpy.jsonl", "r1-i0-b0");
  LoopbackHttpServer server(family_handler(family, ScriptedModel{winner}, options));
  prepare(block, server);
  const std::string env = key_environment(block);

  KernelbotRun search = run_kernelbot("--json search" + kBudget, repo_, env);
  ASSERT_EQ(search.exit_code, 0) << search.out << search.err;
  auto result = nlohmann::json::parse(search.out, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << search.out << search.err;
  EXPECT_EQ(result["proposer"], "llm");
  const std::string best_id = result.value("best_id", "");
  ASSERT_FALSE(best_id.empty()) << "stopped: " << result["stop_reason"] << "\n" << search.err;
  const auto* best = candidate(result, best_id);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ((*best)["verdict"], "accepted");
  EXPECT_TRUE((*best)["eval"]["verification"]["passed"].get<bool>());
  EXPECT_GT((*best)["speedup"].get<double>(), 1.0);
  EXPECT_NE((*best)["variant"]["source"].get<std::string>().find("float4"), std::string::npos);
  for (const auto& c : result["tree"]) {
    EXPECT_EQ(c["variant"].value("source", "").find(kDecoyMarker), std::string::npos) << c["id"];
    EXPECT_EQ(c["idea"].value("text", "").find(kDecoyMarker), std::string::npos) << c["id"];
  }

  KernelbotRun run = run_kernelbot("--json run --dry-run" + kBudget, repo_, env);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, false);  // {"ok", ..., "kernels": [rows]}
  nlohmann::json rows = parsed.is_object() ? parsed.value("kernels", nlohmann::json()) : nlohmann::json();
  ASSERT_TRUE(rows.is_array()) << run.out << run.err;
  ASSERT_EQ(rows.size(), 1u) << run.out;
  EXPECT_EQ(rows[0]["result"], "dry-run PR") << run.out << run.err;
  EXPECT_GT(rows[0]["speedup"].get<double>(), 1.0) << run.out;
  const fs::path pr = repo_ / ".kernelbot/prs/kernelbot-saxpy/PR.md";
  ASSERT_TRUE(fs::exists(pr)) << run.out << run.err;
  EXPECT_NE(read_text(pr).find("| size | original (median) | kernelbot (median) | speedup |"), std::string::npos);

  EXPECT_EQ(family_shape_problem(family, server.requests(), options), "");
  EXPECT_EQ(search.err.find(kFamilyKey), std::string::npos) << "the key is in the log";
  EXPECT_EQ(run.err.find(kFamilyKey), std::string::npos) << "the key is in the log";
}

INSTANTIATE_TEST_SUITE_P(Families, ModelFamilyOnGpu, ::testing::ValuesIn(all_model_families()),
                         [](const ::testing::TestParamInfo<ModelFamily>& param_info) {
                           return family_name(param_info.param);
                         });

}  // namespace
