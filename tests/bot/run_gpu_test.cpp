// `kernelbot run` on a GPU (label gpu): the main job on a git copy of examples/ with a small
// search budget, against the fake GitHub and a bare repository. The second run updates the PR
// the first one opened; a --dry-run writes PR.md with the timing table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kToken = "ghs_gpu_run_token";

class RunGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_rungpu_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
    bare_ = dir_ / "origin.git";
    init_bare_repo(bare_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // `github_keys`: more [github] lines.
  void prepare(const std::string& api_url, const std::string& github_keys = "") {
    std::string toml = read_text(repo_ / "kernelbot.toml");
    // A small budget: the builtin tuner's first round finds the block-size win on saxpy.
    auto at = toml.find("[search]");
    ASSERT_NE(at, std::string::npos);
    toml.insert(at + 9, "proposer = \"builtin\"\n");
    toml += "\n[github]\nrepository = \"acme/examples\"\napi_url = \"" + api_url + "\"\nremote = \"" + bare_.string() +
            "\"\n" + github_keys;
    write_text(repo_ / "kernelbot.toml", toml);
    init_repo_with_commit(repo_);
  }

  KernelbotRun kernelbot(const std::string& args) { return run_kernelbot(args, repo_, "GITHUB_TOKEN=" + kToken); }

  fs::path dir_, repo_, bare_;
};

TEST_F(RunGpuTest, SecondRunUpdatesThePullRequestOfTheFirst) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github.api_url());
  KernelbotRun first = kernelbot("--json run --kernel saxpy --rounds 1 --max-candidates 6");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto rows = nlohmann::json::parse(first.out)["kernels"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["result"], "PR opened") << first.out << first.err;
  EXPECT_GE(rows[0]["speedup"].get<double>(), 1.05);
  ASSERT_EQ(github.open_pulls_for("kernelbot/saxpy").size(), 1u);
  std::string body = github.open_pulls_for("kernelbot/saxpy")[0].body;
  EXPECT_NE(body.find("| size | original (median)"), std::string::npos) << body;
  EXPECT_NE(body.find("NVIDIA"), std::string::npos);
  EXPECT_TRUE(fs::exists(repo_ / ".kernelbot/results/saxpy/result.json"));
  EXPECT_NE(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");

  KernelbotRun second = kernelbot("--json run --kernel saxpy --rounds 1 --max-candidates 6");
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  rows = nlohmann::json::parse(second.out)["kernels"];
  EXPECT_EQ(rows[0]["result"], "PR updated") << second.out << second.err;
  EXPECT_EQ(github.count("POST", "/repos/acme/examples/pulls"), 1);
  EXPECT_EQ(github.count("PATCH", "/repos/acme/examples/pulls/1"), 1);
  EXPECT_EQ(github.open_pulls_for("kernelbot/saxpy").size(), 1u);
  EXPECT_EQ(first.err.find(kToken), std::string::npos);
  EXPECT_EQ(second.err.find(kToken), std::string::npos);
}

TEST_F(RunGpuTest, DryRunWritesThePrWithTheTimingTable) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github.api_url());
  KernelbotRun r = kernelbot("run --kernel saxpy --rounds 1 --max-candidates 6 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  fs::path pr = repo_ / ".kernelbot/prs/kernelbot-saxpy/PR.md";
  ASSERT_TRUE(fs::exists(pr)) << r.out << r.err;
  std::string md = read_text(pr);
  EXPECT_NE(md.find("| size | original (median) | kernelbot (median) | speedup |"), std::string::npos) << md;
  EXPECT_NE(md.find("n=16777216"), std::string::npos);
  EXPECT_NE(r.out.find("dry-run PR"), std::string::npos) << r.out;
  // A dry run reads (its open PRs' comments, for the replies it writes) but changes nothing there.
  for (const auto& request : github.requests())
    EXPECT_EQ(request.method, "GET") << request.method << " " << request.target;
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
}

TEST_F(RunGpuTest, TheNextKernelIsSearchedWhileTheLastWinnerIsPublished) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github.api_url(), "ignore_kernels = [\"row_sum\", \"layernorm\"]\n");
  KernelbotRun r = kernelbot("--json run --rounds 1 --max-candidates 6 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = nlohmann::json::parse(r.out)["kernels"];
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_EQ(rows[0]["kernel"], "saxpy");
  EXPECT_EQ(rows[0]["result"], "dry-run PR") << r.err;
  EXPECT_EQ(rows[1]["kernel"], "transpose");
  EXPECT_NE(rows[1]["result"], "failed") << r.err;
  EXPECT_TRUE(fs::exists(repo_ / ".kernelbot/prs/kernelbot-saxpy/PR.md"));
  // saxpy's PR text was re-verified, and its dry-run PR written, after transpose's search began.
  const size_t next_search = r.err.find("[2/2] transpose");
  const size_t reverified = r.err.find("saxpy: the PR's text re-verified");
  const size_t published = r.err.find("saxpy: dry-run PR");
  ASSERT_NE(next_search, std::string::npos) << r.err;
  ASSERT_NE(reverified, std::string::npos) << r.err;
  ASSERT_NE(published, std::string::npos) << r.err;
  EXPECT_LT(next_search, reverified) << r.err;
  EXPECT_LT(next_search, published) << r.err;
}

}  // namespace
