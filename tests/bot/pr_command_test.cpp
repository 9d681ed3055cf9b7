// `kernelbot pr` end to end: the real binary, a git copy of examples/ with a saved winner, a
// bare repository as the push target and the fake GitHub as the API (with a secondary rate
// limit and a 502 on the way). One open PR with the right body after the first run; the second
// run updates it (PATCH, no second POST). The binary runs with no GPU visible
// (CUDA_VISIBLE_DEVICES empty, on any machine), so it publishes only on the saved result's
// re-verification record, made here by bot/change/reverify on the simulated GPU as `kernelbot run` saves it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "bot/change/result_store.h"
#include "bot/cli/version.h"
#include "bot/pr/pr_body.h"
#include "bot/pr/pr_lifecycle.h"
#include "config/config_loader.h"
#include "search/archive/declined_changes.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kToken = "ghs_cli_SECRET_4f9a";

class PrCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_prcmd_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
    bare_ = dir_ / "origin.git";
    init_bare_repo(bare_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Points [github] at the fake and the bare repository, commits, and saves the stored winner
  // with its PR text re-verified on the simulated GPU with `cost` (none: never re-verified).
  void prepare(const FakeGitHub* github, std::optional<SimCost> cost = saxpy_cost(saxpy_winner_as_searched())) {
    if (github) {
      std::string toml = read_text(repo_ / "kernelbot.toml");
      toml += "\n[github]\nrepository = \"acme/examples\"\napi_url = \"" + github->api_url() + "\"\nremote = \"" +
              bare_.string() + "\"\nlabels = [\"kernelbot\", \"performance\"]\n";
      write_text(repo_ / "kernelbot.toml", toml);
    }
    init_repo_with_commit(repo_);
    auto result = kb::bot::load_result_file(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json");
    if (cost) add_simulated_reverification(kb::config::load_config(repo_ / "kernelbot.toml"), result, *cost);
    kb::bot::save_result(repo_, result, nullptr);
  }

  // No GPU for the binary, whatever this machine has: the saved record is all it can go on.
  KernelbotRun kernelbot(const std::string& args, const std::string& env) {
    return run_kernelbot(args, repo_, "env -u GITHUB_TOKEN CUDA_VISIBLE_DEVICES= " + env);
  }

  // The body `kernelbot pr` must have sent, rendered here from the same inputs.
  std::string expected_body() {
    auto result = nlohmann::json::parse(read_text(repo_ / ".kernelbot/results/saxpy/result.json"))
                      .get<kb::search::SearchResult>();
    std::string original = read_text(fs::path(KB_SOURCE_DIR) / "examples/src/saxpy.cu");
    auto change = kb::bot::make_source_change("src/saxpy.cu", original, "launch_saxpy", result.best()->variant);
    return kb::bot::render_pr_body(result, change,
                                   {"saxpy", "src/saxpy.cu", ".kernelbot/results/saxpy/candidate.cu",
                                    kb::bot::kVersion});
  }
  // On GitHub the body starts with the invisible marker of the change and its re-verified speedup.
  std::string expected_github_body() {
    auto result = nlohmann::json::parse(read_text(repo_ / ".kernelbot/results/saxpy/result.json"))
                      .get<kb::search::SearchResult>();
    const std::string candidate = read_text(repo_ / ".kernelbot/results/saxpy/candidate.cu");
    return kb::bot::change_marker(kb::bot::change_id_of({{"src/saxpy.cu", candidate}}),
                                  result.reverification.eval.speedup) +
           "\n" + kb::bot::measured_on_marker("src/saxpy.cu", result.original_source()) + "\n" + expected_body();
  }

  fs::path dir_, repo_, bare_;
};

TEST_F(PrCommandTest, OpensOnePullRequestThenUpdatesIt) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github);
  github.add_fault({"GET", "/repos/acme/examples/pulls", json_response(502, R"({"message":"Server Error"})")});
  github.add_fault(
      {"POST", "/repos/acme/examples/pulls",
       json_response(403, R"({"message":"You have exceeded a secondary rate limit."})", {{"Retry-After", "0"}})});

  KernelbotRun first = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_EQ(first.out, "PR opened: https://github.com/acme/examples/pull/1\n");
  auto open = github.open_pulls_for("kernelbot/saxpy");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(github.pulls().size(), 1u);
  EXPECT_EQ(open[0].title, "kernelbot: saxpy 1.550x faster");
  EXPECT_EQ(open[0].base, "main");
  EXPECT_EQ(open[0].body, expected_github_body());
  EXPECT_EQ(open[0].labels, (std::vector<std::string>{"kernelbot", "performance"}));
  std::string pushed = *file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu");
  EXPECT_EQ(pushed, read_text(repo_ / ".kernelbot/results/saxpy/candidate.cu"));
  EXPECT_NE(pushed.find("saxpy_vec4_kernel"), std::string::npos);
  const std::string first_commit = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  const int posts = github.count("POST", "/repos/acme/examples/pulls");
  EXPECT_EQ(posts, 2);  // the rate-limited one and the one that landed

  KernelbotRun second = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_EQ(second.out, "PR updated: https://github.com/acme/examples/pull/1\n");
  EXPECT_EQ(github.count("POST", "/repos/acme/examples/pulls"), posts);  // no second PR
  EXPECT_EQ(github.count("PATCH", "/repos/acme/examples/pulls/1"), 1);
  EXPECT_EQ(github.open_pulls_for("kernelbot/saxpy").size(), 1u);
  EXPECT_EQ(github.pulls().size(), 1u);
  EXPECT_EQ(github.pulls()[0].body, expected_github_body());
  // Re-pushed: the same change on the same base (the commit id differs only when the clock
  // ticked a second in between; force-pushing a new one is covered in git_repo_test).
  EXPECT_EQ(commit_info(bare_, "refs/heads/kernelbot/saxpy").parent, commit_info(bare_, first_commit).parent);
  EXPECT_EQ(*file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), pushed);

  for (const KernelbotRun* r : {&first, &second}) {
    EXPECT_EQ(r->out.find(kToken), std::string::npos);
    EXPECT_EQ(r->err.find(kToken), std::string::npos) << r->err;
  }
  EXPECT_EQ(read_text(repo_ / ".git/config").find(kToken), std::string::npos);
  // The work tree is the user's: untouched.
  EXPECT_EQ(read_text(repo_ / "src/saxpy.cu"), read_text(fs::path(KB_SOURCE_DIR) / "examples/src/saxpy.cu"));
}

// A reviewer closes the PR without merging: the next `pr` of the same change opens nothing, says
// why, and the archive remembers the declined change for when GitHub no longer shows it.
TEST_F(PrCommandTest, AChangeClosedWithoutMergingIsNotProposedAgainAndTheArchiveRemembersIt) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github);
  KernelbotRun first = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  github.close_pull(1);

  KernelbotRun again = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;  // `pr`: no PR is exit 1, whatever the reason
  EXPECT_NE(again.err.find("the same change was proposed in #1"), std::string::npos) << again.err;
  EXPECT_EQ(github.count("POST", "/repos/acme/examples/pulls"), 1);
  EXPECT_EQ(github.pulls()[0].state, "closed");
  auto declined = kb::search::DeclinedChanges(repo_ / ".kernelbot/archive.sqlite").of("saxpy");
  ASSERT_EQ(declined.size(), 1u);
  EXPECT_EQ(declined[0].number, 1);
  EXPECT_EQ(declined[0].url, "https://github.com/acme/examples/pull/1");
  EXPECT_EQ(declined[0].change_id,
            kb::bot::change_id_of({{"src/saxpy.cu", read_text(repo_ / ".kernelbot/results/saxpy/candidate.cu")}}));
}

TEST_F(PrCommandTest, DryRunTalksToNobody) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github);
  KernelbotRun r = kernelbot("pr --kernel saxpy --dry-run", "GITHUB_TOKEN=" + kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path pr = repo_ / ".kernelbot/prs/kernelbot-saxpy/PR.md";
  EXPECT_EQ(r.out, "dry-run PR written: " + pr.string() + "\n");
  EXPECT_NE(read_text(pr).find(expected_body()), std::string::npos);
  EXPECT_TRUE(fs::exists(repo_ / ".kernelbot/prs/kernelbot-saxpy/change.patch"));
  EXPECT_TRUE(github.requests().empty());
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
  EXPECT_NE(ref_target(repo_, "refs/heads/kernelbot/saxpy"), "");  // the local branch
}

TEST_F(PrCommandTest, NoRepositoryConfiguredMeansDryRun) {
  prepare(nullptr);
  KernelbotRun r = kernelbot("--json pr --kernel saxpy", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["forge"], "dry-run");
  EXPECT_TRUE(fs::exists(j["pr"].get<std::string>()));
}

TEST_F(PrCommandTest, MissingTokenIsAUsageError) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github);
  KernelbotRun r = kernelbot("pr --kernel saxpy", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("GITHUB_TOKEN"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--dry-run"), std::string::npos) << r.err;
  EXPECT_TRUE(github.requests().empty());
}

// The search measured the original as it was; a PR spliced into another text would claim a speedup
// nobody measured. Refused before any GPU or network work, naming the file.
TEST_F(PrCommandTest, RefusesAnOriginalChangedSinceTheSearchNamingTheFile) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github);
  write_text(repo_ / "src/saxpy.cu", read_text(repo_ / "src/saxpy.cu") + "// edited after the search\n");
  KernelbotRun r = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find((repo_ / "src/saxpy.cu").string() + " has changed since the search measured it"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(github.requests().empty());
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
  EXPECT_EQ(ref_target(repo_, "refs/heads/kernelbot/saxpy"), "");
}

TEST_F(PrCommandTest, WithoutAGpuAResultNeverReverifiedIsRefused) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github, std::nullopt);
  KernelbotRun r = kernelbot("pr --kernel saxpy", "GITHUB_TOKEN=" + kToken);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no PR for 'saxpy': the result carries no re-verification of the PR's text, and this "
                       "job has no GPU to re-verify it"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(github.requests().empty());
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
}

TEST_F(PrCommandTest, WithoutAGpuARecordThatFailedIsRefused) {
  FakeGitHub github("acme/examples", kToken);
  prepare(&github, saxpy_cost(SimBehaviour{64.5, false, true, false}));  // the PR's text was wrong when re-verified
  KernelbotRun r = kernelbot("pr --kernel saxpy --dry-run", "");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the PR's file failed re-verification: wrong_result"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(repo_ / ".kernelbot/prs/kernelbot-saxpy/PR.md"));
}

TEST_F(PrCommandTest, NoSavedResultFailsNamingTheFile) {
  init_repo_with_commit(repo_);
  KernelbotRun r = kernelbot("pr --kernel saxpy --dry-run", "");
  EXPECT_EQ(r.exit_code, 2);  // the user must run `kernelbot run` or `search` first: bad usage, not a failure
  EXPECT_NE(r.err.find(".kernelbot/results/saxpy/result.json"), std::string::npos) << r.err;
  EXPECT_EQ(kernelbot("pr --kernel nope --dry-run", "").exit_code, 2);
}

}  // namespace
