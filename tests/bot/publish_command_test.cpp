// `kernelbot publish` end to end: the real binary, a git copy of examples/, two shard directories
// of a 2-way sweep (saxpy's saved winner and a transpose winner made from it), a bare repository
// to push to and the fake GitHub. One PR per kernel on the first run, the same PRs updated on the
// second; a kernel whose original no longer matches the base branch is refused; a kernel whose
// shard did not re-verify its PR text is refused; a missing shard fails naming its kernels. The
// shards' re-verification records are made by bot/change/reverify on the simulated GPU, as a shard on a
// GPU runner saves them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bot/change/result_store.h"
#include "bot/forge/git_repo.h"
#include "bot/job/sweep_bundle.h"
#include "config/config_loader.h"
#include "search/archive/archive.h"
#include "search/archive/archive_exchange.h"
#include "search/archive/content_hash.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kToken = "ghs_publish_SECRET_77c1";

class PublishCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_publishcmd_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
    bare_ = dir_ / "origin.git";
    init_bare_repo(bare_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void prepare(const FakeGitHub& github) {
    std::string toml = read_text(repo_ / "kernelbot.toml");
    toml += "\n[github]\nrepository = \"acme/examples\"\napi_url = \"" + github.api_url() + "\"\nremote = \"" +
            bare_.string() + "\"\n";
    write_text(repo_ / "kernelbot.toml", toml);
    init_repo_with_commit(repo_);
    write_shards();
  }

  // Shard 0 searched saxpy, shard 1 transpose, as `run --shard I/2 --no-publish` writes them.
  void write_shards() {
    auto saxpy = kb::bot::load_result_file(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json");
    // transpose: the same measurements, on transpose's own original and a change to its kernel.
    auto transpose = saxpy;
    transpose.kernel = "transpose";
    const std::string original = read_text(repo_ / "src/transpose.cu");
    transpose.tree.front().variant.source = original;
    auto& best = transpose.tree.at(
        static_cast<size_t>(std::find_if(transpose.tree.begin(), transpose.tree.end(),
                                         [&](const auto& c) { return c.id == saxpy.best_id; }) -
                            transpose.tree.begin()));
    std::string faster = original;
    faster.replace(faster.find("if (r < rows && c < cols)"), 25, "if (c < cols && r < rows)");
    best.variant = kb::Variant{faster, {}, {}, "swapped bounds check"};
    // Each shard re-verified its winner's PR text on its (simulated) GPU before saving it.
    const auto config = kb::config::load_config(repo_ / "kernelbot.toml");
    const std::string by = "kernelbot run --shard 0/2 --no-publish";
    add_simulated_reverification(config, saxpy, saxpy_cost(saxpy_winner_as_searched()), by);
    add_simulated_reverification(
        config, transpose,
        [](const kb::Variant& v) {
          return SimBehaviour{v.source.find("if (c < cols && r < rows)") != std::string::npos ? 64.5 : 100.0, false,
                              false, false};
        },
        "kernelbot run --shard 1/2 --no-publish");
    EXPECT_TRUE(saxpy.reverification.passed) << saxpy.reverification.failure;
    EXPECT_TRUE(transpose.reverification.passed) << transpose.reverification.failure;
    const std::vector<std::vector<std::string>> plan = {{"saxpy"}, {"transpose"}};
    write_shard(0, saxpy, plan);
    write_shard(1, transpose, plan);
  }

  void write_shard(int index, const kb::search::SearchResult& result,
                   const std::vector<std::vector<std::string>>& plan) {
    fs::path out = shard_dir(index);
    kb::bot::save_result_in(kb::bot::bundle_result_dir(out, result.kernel), result, nullptr);
    kb::bot::BundleManifest m;
    m.shard = {index, 2};
    m.plan.shards = plan;
    m.kernels.push_back({result.kernel, "winner saved", "", false});
    kb::bot::write_manifest(out, m);
    // One archive row per shard, to see the merge land in [search].archive.
    kb::search::Archive scratch(dir_ / ("scratch-" + std::to_string(index) + ".sqlite"));
    auto winner = *result.best();
    winner.variant_hash = kb::search::variant_hash(winner.variant);  // the saved result predates the field
    scratch.store(kb::search::ArchiveKey{result.kernel, "src", "spec", "NVIDIA H200", "13.0"}, winner, "");
    kb::search::write_archive_export(kb::bot::bundle_archive_file(out), scratch.rows());
  }

  fs::path shard_dir(int i) const { return dir_ / "shards" / ("shard-" + std::to_string(i)); }

  KernelbotRun publish(const std::string& dirs, const std::string& env = "GITHUB_TOKEN=" + kToken) {
    return run_kernelbot("--json publish " + dirs, repo_, "env -u GITHUB_TOKEN " + env);
  }
  std::string both() const { return shard_dir(0).string() + " " + shard_dir(1).string(); }

  static const nlohmann::json& row(const nlohmann::json& rows, const std::string& kernel) {
    for (const auto& r : rows)
      if (r["kernel"] == kernel) return r;
    throw std::runtime_error("no row for " + kernel);
  }

  fs::path dir_, repo_, bare_;
};

}  // namespace

TEST_F(PublishCommandTest, OpensOnePullRequestPerKernelThenUpdatesThem) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github);

  KernelbotRun first = publish(both());
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto rows = nlohmann::json::parse(first.out)["kernels"];
  EXPECT_EQ(row(rows, "saxpy")["result"], "PR opened") << first.out;
  EXPECT_EQ(row(rows, "transpose")["result"], "PR opened") << first.out;
  EXPECT_EQ(github.pulls().size(), 2u);
  ASSERT_EQ(github.open_pulls_for("kernelbot/saxpy").size(), 1u);
  ASSERT_EQ(github.open_pulls_for("kernelbot/transpose").size(), 1u);
  EXPECT_NE(file_in(bare_, "refs/heads/kernelbot/transpose", "src/transpose.cu")->find("if (c < cols && r < rows)"),
            std::string::npos);
  EXPECT_NE(file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu")->find("saxpy_vec4_kernel"), std::string::npos);
  const int posts = github.count("POST", "/repos/acme/examples/pulls");
  EXPECT_EQ(posts, 2);
  // The shards' archive rows are in the persistent archive now.
  kb::search::Archive archive(repo_ / ".kernelbot/archive.sqlite");
  EXPECT_EQ(archive.rows("saxpy").size(), 1u);
  EXPECT_EQ(archive.rows("transpose").size(), 1u);

  KernelbotRun second = publish(both());
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  rows = nlohmann::json::parse(second.out)["kernels"];
  EXPECT_EQ(row(rows, "saxpy")["result"], "PR updated");
  EXPECT_EQ(row(rows, "transpose")["result"], "PR updated");
  EXPECT_EQ(github.count("POST", "/repos/acme/examples/pulls"), posts);  // no new PR
  EXPECT_EQ(github.pulls().size(), 2u);
  EXPECT_EQ(github.open_pulls_for("kernelbot/saxpy").size(), 1u);
  EXPECT_EQ(github.open_pulls_for("kernelbot/transpose").size(), 1u);
  EXPECT_EQ(archive.rows().size(), 2u);  // merging the same rows again added none

  for (const KernelbotRun* r : {&first, &second}) {
    EXPECT_EQ(r->out.find(kToken), std::string::npos);
    EXPECT_EQ(r->err.find(kToken), std::string::npos);
  }
}

TEST_F(PublishCommandTest, RefusesAKernelWhoseOriginalNoLongerMatchesTheBaseBranch) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github);
  auto repo = kb::bot::GitRepo::discover(repo_);
  ASSERT_TRUE(repo);
  std::string moved = read_text(repo_ / "src/saxpy.cu") + "\n// a later commit on main\n";
  repo->commit_on_branch("main", "main", {{"src/saxpy.cu", moved}}, "main moves on", "Dev", "dev@example.com");

  KernelbotRun r = publish(both());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto rows = nlohmann::json::parse(r.out)["kernels"];
  EXPECT_EQ(row(rows, "saxpy")["result"], "refused");
  EXPECT_NE(row(rows, "saxpy")["note"].get<std::string>().find(
                "src/saxpy.cu on refs/heads/main is no longer the original"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(row(rows, "transpose")["result"], "PR opened");
  EXPECT_TRUE(github.open_pulls_for("kernelbot/saxpy").empty());
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
  EXPECT_EQ(github.pulls().size(), 1u);
}

// publish has no GPU: a winner is published only on its shard's re-verification of the PR's text.
TEST_F(PublishCommandTest, RefusesAKernelWhoseShardDidNotReverifyItsPrText) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github);
  const fs::path saved = kb::bot::bundle_result_dir(shard_dir(1), "transpose");
  auto transpose = kb::bot::load_result_file(saved / "result.json");
  ASSERT_TRUE(transpose.reverification.passed);
  transpose.reverification = {};  // as a shard of an older kernelbot wrote it
  kb::bot::save_result_in(saved, transpose, nullptr);

  KernelbotRun r = publish(both());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto rows = nlohmann::json::parse(r.out)["kernels"];
  EXPECT_EQ(row(rows, "transpose")["result"], "refused") << r.out;
  EXPECT_TRUE(row(rows, "transpose")["failed"].get<bool>());
  EXPECT_NE(row(rows, "transpose")["note"].get<std::string>().find("carries no re-verification of the PR's text"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(row(rows, "saxpy")["result"], "PR opened") << r.out;
  EXPECT_TRUE(github.open_pulls_for("kernelbot/transpose").empty());
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/transpose"), "");
  EXPECT_EQ(github.pulls().size(), 1u);
}

TEST_F(PublishCommandTest, AMissingShardFailsNamingItsKernels) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github);
  KernelbotRun r = publish(shard_dir(0).string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto rows = nlohmann::json::parse(r.out)["kernels"];
  EXPECT_EQ(row(rows, "saxpy")["result"], "PR opened");
  EXPECT_EQ(row(rows, "transpose")["result"], "failed");
  EXPECT_NE(row(rows, "transpose")["note"].get<std::string>().find("shard 1/2 is missing"), std::string::npos) << r.out;
  EXPECT_EQ(rows.size(), 2u);  // row_sum and layernorm were not targets of this sweep
}

TEST_F(PublishCommandTest, BadInputsAreUsageErrorsBeforeAnyRequest) {
  FakeGitHub github("acme/examples", kToken);
  prepare(github);
  KernelbotRun no_token = publish(both(), "");
  EXPECT_EQ(no_token.exit_code, 2);
  EXPECT_NE(no_token.err.find("GITHUB_TOKEN"), std::string::npos) << no_token.err;
  EXPECT_EQ(publish((dir_ / "nowhere").string()).exit_code, 2);
  KernelbotRun not_a_shard = publish(repo_.string());
  EXPECT_EQ(not_a_shard.exit_code, 1);
  EXPECT_NE(not_a_shard.err.find("no manifest.json"), std::string::npos) << not_a_shard.err;
  // Two shards of different sweeps (different plans) are not merged.
  kb::bot::BundleManifest other;
  other.shard = {1, 2};
  other.plan.shards = {{"transpose"}, {"saxpy"}};
  kb::bot::write_manifest(dir_ / "other", other);
  KernelbotRun mixed = publish(shard_dir(0).string() + " " + (dir_ / "other").string());
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("not shards of one sweep"), std::string::npos) << mixed.err;
  EXPECT_TRUE(github.requests().empty());
}
