// `kernelbot status` end to end: the real binary on a git copy of examples/ with an archived
// result, offline (the archive only) and against the fake GitHub (the open PRs), in the terminal
// and as one JSON object; no GPU is looked for.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bot/change/result_store.h"
#include "config/config_loader.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kStatusToken = "ghs_status_SECRET_77";

class StatusCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_status_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void prepare(const FakeGitHub* github) {
    if (github)
      write_text(repo_ / "kernelbot.toml", read_text(repo_ / "kernelbot.toml") +
                                               "\n[github]\nrepository = \"acme/examples\"\napi_url = \"" +
                                               github->api_url() + "\"\n");
    init_repo_with_commit(repo_);
    auto result = kb::bot::load_result_file(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json");
    add_simulated_reverification(kb::config::load_config(repo_ / "kernelbot.toml"), result);
    kb::bot::save_result(repo_, result, nullptr);
  }
  KernelbotRun kernelbot(const std::string& args, const std::string& env = "") {
    return run_kernelbot(args, repo_, "env -u GITHUB_TOKEN CUDA_VISIBLE_DEVICES= " + env);
  }
  static nlohmann::json row(const nlohmann::json& out, const std::string& kernel) {
    for (const auto& k : out["kernels"])
      if (k["kernel"] == kernel) return k;
    return nullptr;
  }

  fs::path dir_, repo_;
};

TEST_F(StatusCommandTest, OfflineJsonIsOneObjectFromTheArchive) {
  prepare(nullptr);
  KernelbotRun r = kernelbot("--json status --offline");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["ok"], true);
  EXPECT_EQ(out["exit_code"], 0);
  EXPECT_EQ(out["forge_asked"], false);
  const auto saxpy = row(out, "saxpy");
  ASSERT_FALSE(saxpy.is_null()) << r.out;
  EXPECT_EQ(saxpy["state"], "winner, no PR");
  EXPECT_EQ(saxpy["verified"], "passed");
  EXPECT_GT(saxpy["speedup"].get<double>(), 1.4);
  EXPECT_EQ(row(out, "transpose")["state"], "not searched yet");
  EXPECT_TRUE(out["budget"].contains("candidates"));
}

TEST_F(StatusCommandTest, WithGitHubTheOpenPrIsShownInTheTerminal) {
  FakeGitHub github("acme/examples", kStatusToken);
  github.add_pull("kernelbot/saxpy", "kernelbot: saxpy 1.55x faster");
  prepare(&github);
  KernelbotRun r = kernelbot("status", "GITHUB_TOKEN=" + kStatusToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("PR open"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("https://github.com/acme/examples/pull/1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("budget spent"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kStatusToken), std::string::npos);
  EXPECT_EQ(r.err.find(kStatusToken), std::string::npos);
  EXPECT_EQ(github.count("GET", "/repos/acme/examples/pulls"), 1);
  EXPECT_EQ(github.count("POST", "/"), 0) << "status writes nothing";
}

TEST_F(StatusCommandTest, HelpNamesTheFlag) {
  prepare(nullptr);
  KernelbotRun r = kernelbot("status --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--offline"), std::string::npos) << r.out;
}

}  // namespace
