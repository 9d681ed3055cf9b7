// The forges: GitHub (a real local repository, a bare repository as the push target, the fake
// GitHub for the API) and the dry run (local commit and PR files).
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "bot/cli/cli_context.h"
#include "bot/forge/dry_run_forge.h"
#include "bot/forge/forge_factory.h"
#include "bot/forge/github_forge.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/support/scoped_env.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kToken = "ghs_forge_token";

class ForgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_forge_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    write_text(work_ / "src/saxpy.cu", "#define SAXPY_BLOCK 32\n");
    base_ = init_repo_with_commit(work_);
    bare_ = dir_ / "remote.git";
    init_bare_repo(bare_);
    add_remote(work_, "origin", bare_.string());
    github_.max_open_prs = 3;
    github_.repository = "acme/widgets";
  }
  void TearDown() override { fs::remove_all(dir_); }

  kb::bot::PullRequest pr(const std::string& content, const std::string& title = "kernelbot: saxpy 1.55x faster") {
    kb::bot::PullRequest p;
    p.title = title;
    p.body = "body for " + content;
    p.head = "kernelbot/saxpy";
    p.base = "main";
    p.labels = {"kernelbot", "performance"};
    std::string path = (work_ / "src/saxpy.cu").string();
    p.files[path] = content;
    p.originals[path] = "#define SAXPY_BLOCK 32\n";
    p.commit_message = "saxpy: 1.55x faster (verified on NVIDIA H100 80GB HBM3)\n";
    p.patch = "--- a/src/saxpy.cu\n+++ b/src/saxpy.cu\n";
    return p;
  }
  kb::bot::GitHubForge forge(FakeGitHub& gh) {
    kb::bot::GitHubRetryPolicy policy;
    policy.sleep = [](double) {};
    auto repo = kb::bot::GitRepo::discover(work_);
    return kb::bot::GitHubForge(github_, std::move(*repo), "origin", kToken,
                                std::make_unique<kb::bot::GitHubClient>(gh.api_url(), "acme/widgets", kToken, policy));
  }

  fs::path dir_, work_, bare_;
  std::string base_;
  kb::config::GithubConfig github_;
};

TEST_F(ForgeTest, GitHubOpensOncePushesAndThenUpdatesInPlace) {
  FakeGitHub gh("acme/widgets", kToken);
  auto f = forge(gh);
  auto first = f.open_or_update(pr("#define SAXPY_BLOCK 256\n"));
  EXPECT_TRUE(first.published);
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.number, 1);
  EXPECT_EQ(first.url, "https://github.com/acme/widgets/pull/1");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), first.commit);
  EXPECT_EQ(gh.pulls()[0].labels, (std::vector<std::string>{"kernelbot", "performance"}));

  auto second = f.open_or_update(pr("#define SAXPY_BLOCK 512\n", "kernelbot: saxpy 1.61x faster"));
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.number, 1);
  EXPECT_EQ(gh.count("POST", "/repos/acme/widgets/pulls"), 1);  // no second PR
  EXPECT_EQ(gh.count("PATCH", "/repos/acme/widgets/pulls/1"), 1);
  auto open = gh.open_pulls_for("kernelbot/saxpy");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].title, "kernelbot: saxpy 1.61x faster");
  // The text given, after the invisible line that says what the change was measured on.
  const std::string measured_on = "<!-- kernelbot-measured-on: src/saxpy.cu sha256:";
  EXPECT_EQ(open[0].body.rfind(measured_on, 0), 0u) << open[0].body;
  EXPECT_EQ(open[0].body.substr(open[0].body.find("-->\n") + 4), "body for #define SAXPY_BLOCK 512\n");
  // Force-pushed: the branch holds the new commit, built on main rather than on the old one.
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), second.commit);
  EXPECT_EQ(commit_info(bare_, second.commit).parent, base_);
  EXPECT_EQ(*file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), "#define SAXPY_BLOCK 512\n");
}

TEST_F(ForgeTest, GitHubRespectsMaxOpenPrsWithoutPushing) {
  FakeGitHub gh("acme/widgets", kToken, /*page_size=*/2);  // the count must follow pagination
  gh.add_pull("kernelbot/transpose", "t");
  gh.add_pull("feature/unrelated", "u");
  gh.add_pull("kernelbot/row_sum", "r");
  gh.add_pull("kernelbot/layernorm", "l");
  auto f = forge(gh);
  auto out = f.open_or_update(pr("#define SAXPY_BLOCK 256\n"));
  EXPECT_FALSE(out.published);
  EXPECT_NE(out.note.find("max_open_prs is 3"), std::string::npos) << out.note;
  EXPECT_EQ(gh.count("POST", "/repos/acme/widgets/pulls"), 0);
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");  // nothing pushed

  // Updating the bot's own open PR needs no free slot.
  gh.add_pull("kernelbot/saxpy", "earlier run");
  auto update = f.open_or_update(pr("#define SAXPY_BLOCK 256\n"));
  EXPECT_TRUE(update.published);
  EXPECT_FALSE(update.created);
}

TEST_F(ForgeTest, GitHubClosesADuplicateAsSuperseded) {
  FakeGitHub gh("acme/widgets", kToken);
  int64_t older = gh.add_pull("kernelbot/saxpy", "first");
  int64_t newer = gh.add_pull("kernelbot/saxpy", "racing duplicate");
  auto f = forge(gh);
  auto out = f.open_or_update(pr("#define SAXPY_BLOCK 256\n"));
  EXPECT_EQ(out.number, older);
  auto pulls = gh.pulls();
  EXPECT_EQ(pulls[static_cast<size_t>(newer - 1)].state, "closed");
  ASSERT_EQ(pulls[static_cast<size_t>(newer - 1)].comments.size(), 1u);
  EXPECT_NE(pulls[static_cast<size_t>(newer - 1)].comments[0].find("Superseded by #" + std::to_string(older)),
            std::string::npos);
  EXPECT_EQ(gh.open_pulls_for("kernelbot/saxpy").size(), 1u);
}

TEST_F(ForgeTest, DryRunCommitsLocallyAndWritesThePrFiles) {
  kb::bot::DryRunForge f(work_, kb::bot::GitRepo::discover(work_));
  auto out = f.open_or_update(pr("#define SAXPY_BLOCK 256\n"));
  EXPECT_TRUE(out.created);
  EXPECT_EQ(out.url, (work_ / ".kernelbot/prs/kernelbot-saxpy/PR.md").string());
  std::string md = read_text(out.url);
  EXPECT_EQ(md.rfind("# kernelbot: saxpy 1.55x faster\n", 0), 0u);
  EXPECT_NE(md.find("body for #define SAXPY_BLOCK 256"), std::string::npos);
  EXPECT_EQ(read_text(work_ / ".kernelbot/prs/kernelbot-saxpy/change.patch"),
            "--- a/src/saxpy.cu\n+++ b/src/saxpy.cu\n");
  EXPECT_FALSE(out.commit.empty());
  EXPECT_EQ(ref_target(work_, "refs/heads/kernelbot/saxpy"), out.commit);
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");  // a dry run pushes nothing
  EXPECT_EQ(read_text(work_ / "src/saxpy.cu"), "#define SAXPY_BLOCK 32\n");
  EXPECT_FALSE(f.open_or_update(pr("#define SAXPY_BLOCK 256\n")).created);
}

TEST_F(ForgeTest, DryRunOutsideARepositorySaysSo) {
  fs::path plain = dir_ / "plain";
  fs::create_directories(plain);
  kb::bot::DryRunForge f(plain, std::nullopt);
  auto p = pr("x");
  p.files.clear();
  p.originals.clear();
  auto out = f.open_or_update(p);
  EXPECT_NE(out.note.find("not in a git repository"), std::string::npos);
  EXPECT_TRUE(out.commit.empty());
  EXPECT_TRUE(fs::exists(plain / ".kernelbot/prs/kernelbot-saxpy/PR.md"));
}

TEST_F(ForgeTest, TheTokenComesFromTokenEnvThenGithubTokenAndItsAbsenceIsNamed) {
  kb::config::Config config;
  config.root = work_;
  config.github.repository = "acme/widgets";
  config.github.token_env = "KB_FORGE_TEST_TOKEN";
  kb::testing::ScopedEnv token_env("KB_FORGE_TEST_TOKEN", std::nullopt);
  kb::testing::ScopedEnv github_env("GITHUB_TOKEN", std::nullopt);
  try {
    kb::bot::make_forge(config, false);
    FAIL() << "expected a missing-token error";
  } catch (const kb::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("$KB_FORGE_TEST_TOKEN and $GITHUB_TOKEN are not set"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(kb::bot::make_forge(config, true)->name(), "dry-run");  // --dry-run needs no token
  ::setenv("GITHUB_TOKEN", "fallback", 1);
  EXPECT_EQ(kb::bot::github_token(config.github), "fallback");
  ::setenv("KB_FORGE_TEST_TOKEN", "primary", 1);
  EXPECT_EQ(kb::bot::github_token(config.github), "primary");
  EXPECT_EQ(kb::bot::make_forge(config, false)->name(), "github");
  config.github.repository.clear();
  EXPECT_EQ(kb::bot::make_forge(config, false)->name(), "dry-run");
}

TEST_F(ForgeTest, SshRemoteBecomesHttpsWhenATokenIsGiven) {
  fs::path other = dir_ / "ssh";
  write_text(other / "a.txt", "a\n");
  init_repo_with_commit(other);
  add_remote(other, "origin", "git@github.com:acme/widgets.git");
  auto repo = kb::bot::GitRepo::discover(other);
  kb::config::GithubConfig g;
  g.repository = "acme/widgets";
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "https://github.com/acme/widgets.git");
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, false), "origin");
  g.api_url = "https://ghe.example.com/api/v3";
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "https://ghe.example.com/acme/widgets.git");
  g.remote = "/srv/git/widgets.git";  // not a remote's name: used as the URL
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "/srv/git/widgets.git");
}

// .git/config belongs to the checkout, which candidates or a workflow step could rewrite: the
// token is pushed only to [github].repository on the configured host, whatever URL it names.
TEST_F(ForgeTest, TokenIsPushedOnlyToTheConfiguredRepository) {
  fs::path other = dir_ / "hijacked";
  write_text(other / "a.txt", "a\n");
  init_repo_with_commit(other);
  add_remote(other, "origin", "https://evil.example.com/thief/loot.git");
  add_remote(other, "mirror", "http://attacker.example:8080/x.git");
  auto repo = kb::bot::GitRepo::discover(other);
  kb::config::GithubConfig g;
  g.repository = "acme/widgets";
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "https://github.com/acme/widgets.git");
  g.remote = "mirror";
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "https://github.com/acme/widgets.git");
  g.remote = "https://evil.example.com/thief/loot.git";
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, true), "https://github.com/acme/widgets.git");
  EXPECT_EQ(kb::bot::push_target_for(g, *repo, false), "https://evil.example.com/thief/loot.git")
      << "without a token there is nothing to protect";
}

}  // namespace
