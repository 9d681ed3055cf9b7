// The bot's PRs after people have had them, against the fake GitHub and real git repositories:
// a PR closed without merging declines its change (remembered by GitHub and by the archive), an
// ignore label keeps the bot away, a person's commits on the branch are never force-pushed over,
// and a base that moved under the change has the PR follow it (closed with a note when the change
// no longer applies). Plus the pure rules.
#include <gtest/gtest.h>

#include <filesystem>

#include "bot/forge/github_forge.h"
#include "bot/pr/pr_lifecycle.h"
#include "common/sha256.h"
#include "search/archive/declined_changes.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kLifecycleToken = "ghs_lifecycle_token";
const std::string kOriginal = "#define SAXPY_BLOCK 32\n";

class PrLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_prlife_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    write_text(work_ / "src/saxpy.cu", kOriginal);
    init_repo_with_commit(work_);
    bare_ = dir_ / "remote.git";
    init_bare_repo(bare_);
    add_remote(work_, "origin", bare_.string());
    github_.repository = "acme/widgets";
  }
  void TearDown() override { fs::remove_all(dir_); }

  kb::bot::PullRequest winner(const std::string& content, double speedup) {
    kb::bot::PullRequest p;
    p.title = "kernelbot: saxpy " + std::to_string(speedup).substr(0, 4) + "x faster";
    p.body = "body for " + content;
    p.head = "kernelbot/saxpy";
    p.base = "main";
    p.labels = {"kernelbot"};
    const std::string path = (work_ / "src/saxpy.cu").string();
    p.files[path] = content;
    p.originals[path] = kOriginal;
    p.commit_message = "saxpy: faster\n\n1M: 10.0 us -> 6.0 us (1.67x)\n";
    p.kernel = "saxpy";
    p.change_id = kb::bot::change_id_of(p.files);
    p.speedup = speedup;
    return p;
  }
  kb::bot::GitHubForge forge(FakeGitHub& gh) {
    kb::bot::GitHubRetryPolicy policy;
    policy.sleep = [](double) {};
    return kb::bot::GitHubForge(github_, std::move(*kb::bot::GitRepo::discover(work_)), "origin", kLifecycleToken,
                                std::make_unique<kb::bot::GitHubClient>(gh.api_url(), "acme/widgets", kLifecycleToken,
                                                                        policy));
  }

  fs::path dir_, work_, bare_;
  kb::config::GithubConfig github_;
};

TEST_F(PrLifecycleTest, AClosedPrDeclinesItsChangeAndOnlyAClearlyBetterWinnerOpensANewOne) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.50));
  ASSERT_TRUE(first.created);
  // The body starts with the marker that says what a closed PR declined.
  auto marker = kb::bot::parse_change_marker(gh.pulls()[0].body);
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->change_id, winner("#define SAXPY_BLOCK 256\n", 1.50).change_id);
  EXPECT_DOUBLE_EQ(marker->speedup, 1.5);
  gh.close_pull(first.number);  // a reviewer closes it without merging
  const std::string pushed = ref_target(bare_, "refs/heads/kernelbot/saxpy");

  auto same = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.52));
  EXPECT_FALSE(same.published);
  EXPECT_EQ(same.withheld, "declined before");
  EXPECT_NE(same.note.find("same change was proposed in #1"), std::string::npos) << same.note;
  ASSERT_EQ(same.declined.size(), 1u);  // learned from GitHub, for the archive
  EXPECT_EQ(same.declined[0].number, 1);
  EXPECT_EQ(same.declined[0].kernel, "saxpy");
  EXPECT_EQ(same.declined[0].change_id, marker->change_id);
  EXPECT_EQ(same.declined[0].closed_at, "2011-01-26T19:01:12Z");

  // Another change, but not 1.10x the declined 1.50x: still withheld.
  auto slightly = f.open_or_update(winner("#define SAXPY_BLOCK 512\n", 1.60));
  EXPECT_EQ(slightly.withheld, "declined before");
  EXPECT_NE(slightly.note.find("needs at least 1.650x"), std::string::npos) << slightly.note;
  EXPECT_EQ(gh.count("POST", "/repos/acme/widgets/pulls"), 1);
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed) << "nothing pushed while withheld";

  auto better = f.open_or_update(winner("#define SAXPY_BLOCK 1024\n", 1.80));
  EXPECT_TRUE(better.published);
  EXPECT_TRUE(better.created);
  EXPECT_EQ(better.number, 2);
  EXPECT_NE(gh.pulls()[1].body.find("Follows #1, which was closed without merging (1.500x)"), std::string::npos)
      << gh.pulls()[1].body;
  EXPECT_EQ(gh.pulls()[0].state, "closed");
}

TEST_F(PrLifecycleTest, TheArchiveRemembersADeclinedChangeGitHubNoLongerShows) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);  // the closed PR and its branch are gone
  auto f = forge(gh);
  auto pr = winner("#define SAXPY_BLOCK 256\n", 1.5);
  pr.declined = {{"saxpy", pr.change_id, 1.5, 7, "https://github.com/acme/widgets/pull/7", "2026-01-02T03:04:05Z"}};
  auto out = f.open_or_update(pr);
  EXPECT_FALSE(out.published);
  EXPECT_EQ(out.withheld, "declined before");
  EXPECT_NE(out.note.find("#7"), std::string::npos) << out.note;
  EXPECT_EQ(gh.count("POST", "/repos/acme/widgets/pulls"), 0);

  // The archive's table round-trips what the forge reports.
  const fs::path archive = dir_ / "archive.sqlite";
  {
    kb::search::DeclinedChanges store(archive);
    store.record(pr.declined[0]);
    auto updated = pr.declined[0];
    updated.speedup = 1.6;
    store.record(updated);  // the same PR again: one row, the newer facts
    store.record({"other", "", 2.0, 3, "u", "t"});
  }
  auto rows = kb::search::DeclinedChanges(archive).of("saxpy");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].number, 7);
  EXPECT_DOUBLE_EQ(rows[0].speedup, 1.6);
  EXPECT_EQ(rows[0].change_id, pr.change_id);
}

TEST_F(PrLifecycleTest, AReopenedPrIsUpdatedAgainThoughTheArchiveRemembersItClosed) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  auto pr = winner("#define SAXPY_BLOCK 512\n", 1.55);
  pr.declined = {{"saxpy", winner("#define SAXPY_BLOCK 256\n", 1.5).change_id, 1.5, first.number, "", ""}};
  auto out = f.open_or_update(pr);  // #1 is open on GitHub: the archive's memory of it is stale
  EXPECT_TRUE(out.published) << out.note;
  EXPECT_FALSE(out.created);
  EXPECT_EQ(out.number, first.number);
}

TEST_F(PrLifecycleTest, AMergedPrDeclinesNothing) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  gh.close_pull(first.number, /*merged=*/true);
  auto next = f.open_or_update(winner("#define SAXPY_BLOCK 512\n", 1.2));
  EXPECT_TRUE(next.published);
  EXPECT_TRUE(next.created);
  EXPECT_TRUE(next.declined.empty());
}

TEST_F(PrLifecycleTest, TheIgnoreLabelOnAnOpenOrClosedPrStopsEveryUpdate) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  gh.add_label(first.number, "kernelbot: ignore");
  const std::string pushed = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  auto out = f.open_or_update(winner("#define SAXPY_BLOCK 512\n", 3.0));
  EXPECT_FALSE(out.published);
  EXPECT_EQ(out.withheld, "ignored");
  EXPECT_EQ(out.number, first.number);
  EXPECT_EQ(gh.count("PATCH", "/repos/acme/widgets/pulls"), 0);
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed);

  gh.close_pull(first.number);  // closed and labelled: still ignored, however fast
  auto later = f.open_or_update(winner("#define SAXPY_BLOCK 1024\n", 9.0));
  EXPECT_EQ(later.withheld, "ignored");
  EXPECT_EQ(gh.count("POST", "/repos/acme/widgets/pulls"), 1);
}

TEST_F(PrLifecycleTest, APersonsCommitOnTheBranchIsNeverForcePushedOver) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  gh.add_commit(first.number, {first.commit, "kernelbot", "kernelbot@users.noreply.github.com", ""});

  // Only the bot's own commit: the update goes ahead.
  auto update = f.open_or_update(winner("#define SAXPY_BLOCK 512\n", 1.6));
  ASSERT_TRUE(update.published);
  gh.add_commit(first.number, {"a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0", "Ada Reviewer", "ada@example.com", ""});
  const std::string pushed = ref_target(bare_, "refs/heads/kernelbot/saxpy");

  auto out = f.open_or_update(winner("#define SAXPY_BLOCK 1024\n", 1.9));
  EXPECT_FALSE(out.published);
  EXPECT_EQ(out.withheld, "left to a person");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed) << "the person's branch was overwritten";
  const auto pull = gh.pulls()[0];
  ASSERT_EQ(pull.comments.size(), 1u);
  EXPECT_NE(pull.comments[0].find("a1b2c3d4e5f6 by Ada Reviewer <ada@example.com>"), std::string::npos)
      << pull.comments[0];
  EXPECT_NE(pull.comments[0].find("1M: 10.0 us -> 6.0 us (1.67x)"), std::string::npos) << "the new numbers";
  EXPECT_EQ(pull.body.find("1024"), std::string::npos) << "the PR's text was not updated";

  // The next night finds the same winner: no second copy of the same comment; a better one is news.
  auto again = f.open_or_update(winner("#define SAXPY_BLOCK 1024\n", 1.9));
  EXPECT_EQ(again.withheld, "left to a person");
  EXPECT_NE(again.note.find("commented before"), std::string::npos) << again.note;
  EXPECT_EQ(gh.pulls()[0].comments.size(), 1u) << "the same note was posted twice";
  f.open_or_update(winner("#define SAXPY_BLOCK 2048\n", 2.5));
  EXPECT_EQ(gh.pulls()[0].comments.size(), 2u) << "new numbers are news";

  // An amend of the bot's commit keeps its author but not its committer: a person's too.
  EXPECT_EQ(kb::bot::commits_by_others({{"s", "kernelbot", "KernelBot@users.noreply.github.com",
                                         "kernelbot@users.noreply.github.com"},
                                        {"t", "kernelbot", "kernelbot@users.noreply.github.com", "ada@example.com"}},
                                       "kernelbot@users.noreply.github.com")
                .size(),
            1u);
}

TEST_F(PrLifecycleTest, AWinnerMeasuredOnAnOldBaseIsNotPushedAndTheOpenPrFollowsTheBase) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  const std::string pushed = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  // Someone changes the kernel on main; the winner was measured against the old text.
  auto repo = kb::bot::GitRepo::discover(work_);
  repo->commit_on_branch("main", "main", {{"src/saxpy.cu", "#define SAXPY_BLOCK 64\n"}}, "tune", "Ada", "ada@x.org");

  auto out = f.open_or_update(winner("#define SAXPY_BLOCK 512\n", 1.6));
  EXPECT_FALSE(out.published);
  EXPECT_EQ(out.withheld, "base moved");
  EXPECT_NE(out.note.find("no PR from this winner"), std::string::npos) << out.note;
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed);
  EXPECT_EQ(gh.pulls()[0].state, "open");

  // The open PR follows the base: both sides rewrote the same line, so replaying the PR's change
  // conflicts, and the PR is closed naming the file.
  auto followed = f.follow_base({"kernelbot/saxpy", "main", false, {}});
  ASSERT_TRUE(followed);
  EXPECT_EQ(followed->withheld, "base moved");
  EXPECT_EQ(followed->conflicts, std::vector<std::string>{"src/saxpy.cu"});
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed);
  const auto pull = gh.pulls()[0];
  EXPECT_EQ(pull.state, "closed");
  ASSERT_EQ(pull.comments.size(), 1u);
  EXPECT_NE(pull.comments[0].find("`src/saxpy.cu` changed on `main`"), std::string::npos) << pull.comments[0];
  EXPECT_NE(pull.comments[0].find("conflicts in `src/saxpy.cu`"), std::string::npos) << pull.comments[0];
  EXPECT_FALSE(first.url.empty());
}

// A job without a GPU (`kernelbot publish`) cannot re-measure a change that still applies to the
// new base: the PR stays open, told once why its numbers are old.
TEST_F(PrLifecycleTest, WithoutAGpuAChangeThatStillAppliesIsLeftOpenWithANoteOnce) {
  const std::string longer = "#define SAXPY_BLOCK 32\n// one\n// two\n// three\n// four\n// five\n// six\n// end\n";
  auto repo = kb::bot::GitRepo::discover(work_);
  repo->commit_on_branch("main", "main", {{"src/saxpy.cu", longer}}, "longer", "Ada", "ada@x.org");
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto pr = winner("#define SAXPY_BLOCK 256\n" + longer.substr(longer.find('\n') + 1), 1.5);
  pr.originals.begin()->second = longer;
  ASSERT_TRUE(f.open_or_update(pr).created);
  const std::string pushed = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  std::string moved = longer;
  moved.replace(moved.find("// end"), 6, "// end, edited on main");
  repo->commit_on_branch("main", "main", {{"src/saxpy.cu", moved}}, "edit", "Ada", "ada@x.org");

  auto followed = f.follow_base({"kernelbot/saxpy", "main", false, {}});
  ASSERT_TRUE(followed);
  EXPECT_FALSE(followed->published);
  EXPECT_EQ(followed->withheld, "base moved");
  EXPECT_NE(followed->note.find("left open for a run with a GPU"), std::string::npos) << followed->note;
  EXPECT_TRUE(followed->conflicts.empty());
  EXPECT_EQ(gh.pulls()[0].state, "open");
  ASSERT_EQ(gh.pulls()[0].comments.size(), 1u);
  EXPECT_NE(gh.pulls()[0].comments[0].find("still applies to the new code"), std::string::npos);
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed);
  f.follow_base({"kernelbot/saxpy", "main", false, {}});
  EXPECT_EQ(gh.pulls()[0].comments.size(), 1u) << "the same note twice";
}

TEST_F(PrLifecycleTest, ANightWithNoWinnerTouchesTheOpenPrOnlyWhenItsFileMovedOnTheBase) {
  FakeGitHub gh("acme/widgets", kLifecycleToken);
  auto f = forge(gh);
  auto first = f.open_or_update(winner("#define SAXPY_BLOCK 256\n", 1.5));
  ASSERT_TRUE(first.created);
  // The body says what the change was measured on, by path and hash.
  const auto measured = kb::bot::parse_measured_on(gh.pulls()[0].body);
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured.begin()->first, "src/saxpy.cu");
  EXPECT_EQ(measured.begin()->second, "sha256:" + kb::sha256_hex(kOriginal));

  // The next night finds nothing faster on the same base: the PR stays as it is.
  const kb::bot::FollowBase no_gpu{"kernelbot/saxpy", "main", false, {}};
  EXPECT_FALSE(f.follow_base(no_gpu));
  EXPECT_EQ(gh.pulls()[0].state, "open");
  EXPECT_TRUE(gh.pulls()[0].comments.empty());

  // An unrelated file changes on main: still nothing to do.
  auto repo = kb::bot::GitRepo::discover(work_);
  repo->commit_on_branch("main", "main", {{"README.md", "docs\n"}}, "docs", "Ada", "ada@x.org");
  EXPECT_FALSE(f.follow_base(no_gpu));
  EXPECT_EQ(gh.pulls()[0].state, "open");

  // Someone changes the kernel's line on main; the night after finds nothing faster in the new
  // code, and the PR's change no longer applies to it: closed with the reason.
  repo->commit_on_branch("main", "main", {{"src/saxpy.cu", "#define SAXPY_BLOCK 64\n"}}, "tune", "Ada", "ada@x.org");
  auto closed = f.follow_base(no_gpu);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->withheld, "base moved");
  EXPECT_EQ(closed->number, first.number);
  EXPECT_NE(closed->note.find("src/saxpy.cu changed on main since #1 was measured"), std::string::npos) << closed->note;
  EXPECT_EQ(gh.pulls()[0].state, "closed");
  ASSERT_EQ(gh.pulls()[0].comments.size(), 1u);
  EXPECT_NE(gh.pulls()[0].comments[0].find("`src/saxpy.cu` changed on `main`"), std::string::npos)
      << gh.pulls()[0].comments[0];

  // An open PR that says nothing of what it was measured on (an older kernelbot's) is left alone.
  gh.add_pull("kernelbot/saxpy", "kernelbot: saxpy 1.40x faster");
  EXPECT_FALSE(f.follow_base(no_gpu));
  EXPECT_EQ(gh.pulls()[1].state, "open");
}

TEST(PrLifecycleRules, MarkersTitlesAndMargins) {
  // What a PR was measured on, and which of those files the base has changed since.
  const std::string body = kb::bot::measured_on_marker("src/a.cu", "old a") + "\n" +
                           kb::bot::measured_on_marker("src/b.cu", "b") + "\nthe body\n";
  const auto measured = kb::bot::parse_measured_on(body);
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_EQ(kb::bot::files_changed_since_measured(measured, {{"src/a.cu", "new a"}, {"src/b.cu", "b"}}),
            std::vector<std::string>{"src/a.cu"});
  EXPECT_EQ(kb::bot::files_changed_since_measured(measured, {{"src/a.cu", std::nullopt}}),
            std::vector<std::string>{"src/a.cu"});  // deleted on the base
  EXPECT_TRUE(kb::bot::files_changed_since_measured(measured, {{"src/a.cu", "old a"}}).empty());
  EXPECT_TRUE(kb::bot::parse_measured_on("no markers").empty());
  const std::string id = kb::bot::change_id_of({{"a.cu", "x"}});
  EXPECT_EQ(id.rfind("sha256:", 0), 0u);
  EXPECT_EQ(id, kb::bot::change_id_of({{"/elsewhere/a.cu", "x"}})) << "the path does not make the change";
  EXPECT_NE(id, kb::bot::change_id_of({{"a.cu", "y"}}));
  auto marker = kb::bot::parse_change_marker("intro\n" + kb::bot::change_marker(id, 2.25) + "\nrest");
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->change_id, id);
  EXPECT_DOUBLE_EQ(marker->speedup, 2.25);
  EXPECT_FALSE(kb::bot::parse_change_marker("<!-- kernelbot-change: sha256:nothex 1x -->"));
  EXPECT_DOUBLE_EQ(kb::bot::speedup_from_title("kernelbot: saxpy 4.49x faster"), 4.49);
  EXPECT_DOUBLE_EQ(kb::bot::speedup_from_title("Tune saxpy"), 0);

  using kb::search::DeclinedChange;
  EXPECT_FALSE(kb::bot::check_declined({}, id, 1.0, 1.1).withhold);
  std::vector<DeclinedChange> declined = {{"k", "sha256:a", 1.5, 3, "", ""}, {"k", "sha256:b", 2.0, 5, "", ""}};
  EXPECT_TRUE(kb::bot::check_declined(declined, "sha256:a", 9.0, 1.1).withhold) << "the same change, however fast";
  EXPECT_TRUE(kb::bot::check_declined(declined, "sha256:c", 2.19, 1.1).withhold) << "the fastest declined counts";
  auto ok = kb::bot::check_declined(declined, "sha256:c", 2.2, 1.1);
  EXPECT_FALSE(ok.withhold);
  ASSERT_TRUE(ok.supersedes);
  EXPECT_EQ(ok.supersedes->number, 5);
  declined.push_back({"k", "", 0, 9, "", ""});  // closed, speedup unknown: nothing is known to be better
  EXPECT_TRUE(kb::bot::check_declined(declined, "sha256:c", 50, 1.1).withhold);
}

}  // namespace
