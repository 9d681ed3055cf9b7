// The README's [llm] blocks, one per family of endpoint, are valid kernelbot.toml: each appended
// to the examples' file passes `kernelbot config check`, so the README cannot ship a key the
// loader refuses; and a family without its block fails here. Also the helpers that read the
// blocks and point them at a loopback server (tests/support/readme_llm_blocks.h), and the
// winner the GPU test's model answers with.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/kernelbot_process.h"
#include "tests/support/model_families.h"
#include "tests/support/readme_llm_blocks.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

std::string readme_markdown() {
  std::ifstream in(fs::path(KB_SOURCE_DIR) / "README.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of examples/ (sources, headers, kernelbot.toml) with `llm_block` appended to its file.
class ExamplesWithLlmBlock {
 public:
  explicit ExamplesWithLlmBlock(const std::string& llm_block, const std::string& name) {
    dir_ = fs::temp_directory_path() / ("kb_readme_llm_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path examples = fs::path(KB_SOURCE_DIR) / "examples";
    for (const char* part : {"src", "include", "kernelbot.toml"})
      fs::copy(examples / part, dir_ / part, fs::copy_options::recursive);
    std::ofstream(dir_ / "kernelbot.toml", std::ios::app) << "\n" << llm_block;
  }
  ~ExamplesWithLlmBlock() { fs::remove_all(dir_); }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

}  // namespace

class ReadmeLlmBlock : public ::testing::TestWithParam<ModelFamily> {};

TEST_P(ReadmeLlmBlock, IsInTheReadmeAndPassesConfigCheck) {
  const ModelFamily family = GetParam();
  auto block = readme_llm_block(readme_markdown(), family);
  ASSERT_TRUE(block.has_value()) << "README.md has no ```toml block starting \"" << readme_block_title(family) << "\"";
  EXPECT_NE(block->find("[llm]\n"), std::string::npos) << *block;
  EXPECT_EQ(toml_string_value(*block, "provider"), "openai-compatible") << *block;
  ExamplesWithLlmBlock project(*block, family_name(family));
  KernelbotRun r = run_kernelbot("config check", project.dir(), "env -u OPENAI_API_KEY");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok (4 kernels)"), std::string::npos) << r.out << r.err;

  // The check could fail: the same block with a misspelt key does.
  ExamplesWithLlmBlock misspelt(*block + "api_key_evn = \"X\"\n", family_name(family) + "_misspelt");
  KernelbotRun bad = run_kernelbot("config check", misspelt.dir());
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("llm.api_key_evn: unknown key"), std::string::npos) << bad.err;
}

INSTANTIATE_TEST_SUITE_P(Families, ReadmeLlmBlock, ::testing::ValuesIn(all_model_families()),
                         [](const ::testing::TestParamInfo<ModelFamily>& param_info) {
                           return family_name(param_info.param);
                         });

TEST(ReadmeLlmBlocks, EveryLlmBlockInTheReadmeIsAFamilyTheTestsDrive) {
  auto blocks = readme_llm_blocks(readme_markdown());
  EXPECT_EQ(blocks.size(), all_model_families().size());
  for (const auto& [title, text] : blocks) {
    bool known = false;
    for (ModelFamily f : all_model_families()) known = known || readme_block_title(f) == title;
    EXPECT_TRUE(known) << "a README [llm] block no test drives: " << title;
  }
}

TEST(ReadmeLlmBlocks, BlocksAreReadByTheirFirstLineOnly) {
  const std::string md = "text\n```toml\n# [llm] for Azure OpenAI\n[llm]\nmodel = \"m\"\n```\n"
                         "```toml\n[search]\nrounds = 1\n# [llm] for an OpenAI reasoning model\n```\n"
                         "```sh\n# [llm] for a local server (llama.cpp, vLLM, Ollama)\n```\n";
  auto blocks = readme_llm_blocks(md);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks.begin()->second, "# [llm] for Azure OpenAI\n[llm]\nmodel = \"m\"\n");
  EXPECT_TRUE(readme_llm_block(md, ModelFamily::azure).has_value());
  EXPECT_FALSE(readme_llm_block(md, ModelFamily::reasoning).has_value());
}

TEST(ReadmeLlmBlocks, BaseUrlMovesToTheLoopbackServerKeepingPathAndQuery) {
  const std::string azure =
      "[llm]\nprovider = \"openai-compatible\"\n"
      "base_url = \"https://r.openai.azure.com/openai/deployments/gpt-4.1?api-version=2024-10-21\"   # c\n";
  const std::string moved = with_base_url_at(azure, "http://127.0.0.1:5");
  EXPECT_EQ(toml_string_value(moved, "base_url"),
            "http://127.0.0.1:5/openai/deployments/gpt-4.1?api-version=2024-10-21");
  EXPECT_NE(moved.find("\"   # c\n"), std::string::npos) << moved;  // the rest of the line is kept
  auto deployment = azure_deployment_of(*toml_string_value(moved, "base_url"));
  ASSERT_TRUE(deployment.has_value());
  EXPECT_EQ(deployment->deployment, "gpt-4.1");
  EXPECT_EQ(deployment->api_version, "2024-10-21");
  EXPECT_FALSE(azure_deployment_of("http://localhost:8080/v1").has_value());

  // No base_url: the default's path (https://api.openai.com/v1) at the new origin.
  const std::string openai = "# t\n[llm]\nmodel = \"o4-mini\"\n";
  EXPECT_EQ(with_base_url_at(openai, "http://127.0.0.1:5"),
            "# t\n[llm]\nbase_url = \"http://127.0.0.1:5/v1\"\nmodel = \"o4-mini\"\n");
  EXPECT_EQ(path_and_query("http://localhost:8080/v1"), "/v1");
  EXPECT_EQ(path_and_query("http://localhost:8080"), "");
  EXPECT_EQ(toml_string_value("api_key_env = \"\"\n", "api_key_env"), "");
  EXPECT_FALSE(toml_string_value("# api_key_env = \"X\"\n", "api_key_env").has_value());
  EXPECT_EQ(toml_integer_value("[llm]\ncontext_tokens = 32_768   # c\n", "context_tokens"), 32768);
  EXPECT_FALSE(toml_integer_value("[llm]\nconcurrency = 2\n", "context_tokens").has_value());
}

TEST(ReadmeLlmBlocks, TheGpuTestsModelAnswersWithTheSaxpyReplaysWinner) {
  const std::string code = replay_reply_code(fs::path(KB_SOURCE_DIR) / "examples/replays/saxpy.jsonl", "r1-i0-b0");
  EXPECT_NE(code.find("float4"), std::string::npos) << code;
  EXPECT_NE(code.find("void launch_saxpy("), std::string::npos) << code;
  EXPECT_EQ(code.find("```"), std::string::npos) << code;
  EXPECT_THROW(replay_reply_code(fs::path(KB_SOURCE_DIR) / "examples/replays/saxpy.jsonl", "r9-i9-b9"),
               std::runtime_error);
}
