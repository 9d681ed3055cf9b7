// The dashboard issue and `kernelbot status`'s view behind it, against the fake GitHub and a git
// copy of examples/ with an archived result: the view reads the archive and the open PRs, the
// issue is created once and then only updated (a race's duplicate closed), its ticked boxes are
// read back, and a dry run writes the body instead of posting it.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bot/change/result_store.h"
#include "bot/forge/github_client.h"
#include "bot/publish/dashboard.h"
#include "bot/publish/kernel_status.h"
#include "config/config_loader.h"
#include "search/archive/declined_changes.h"
#include "search/archive/ignored_kernels.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/support/scoped_env.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kDashboardToken = "ghs_dashboard_token";

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_dashboard_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path examples = fs::path(KB_SOURCE_DIR) / "examples";
    for (const char* part : {"src", "include", "kernelbot.toml"})
      fs::copy(examples / part, dir_ / part, fs::copy_options::recursive);
    init_repo_with_commit(dir_);
    config_ = kb::config::load_config(dir_ / "kernelbot.toml");
    config_.github.repository = "acme/widgets";
    config_.github.api_url = gh_.api_url();
    auto result = nlohmann::json::parse(read_text(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json"))
                      .get<kb::search::SearchResult>();
    add_simulated_reverification(config_, result);
    kb::bot::save_result(config_.root, result, nullptr);
  }
  void TearDown() override { fs::remove_all(dir_); }

  kb::bot::GitHubClient client() {
    kb::bot::GitHubRetryPolicy policy;
    policy.sleep = [](double) {};
    return kb::bot::GitHubClient(gh_.api_url(), "acme/widgets", kDashboardToken, policy);
  }
  const kb::bot::KernelStatus& row(const kb::bot::StatusView& v, const std::string& kernel) {
    for (const auto& k : v.kernels)
      if (k.kernel == kernel) return k;
    throw std::logic_error("no row for " + kernel);
  }

  FakeGitHub gh_{"acme/widgets", kDashboardToken};
  fs::path dir_;
  kb::config::Config config_;
};

TEST_F(DashboardTest, TheViewReadsTheArchiveAndTheOpenPrs) {
  const int64_t pr = gh_.add_pull("kernelbot/saxpy", "kernelbot: saxpy 1.55x faster");
  gh_.add_pull("someone/else", "a person's PR");
  const auto& transpose = config_.kernels.at(1).name;
  kb::search::IgnoredKernels(config_.resolve(config_.search.archive))
      .record({transpose, kb::search::source_fingerprint(read_text(config_.resolve(config_.kernels.at(1).source))),
               "ada", "https://github.com/acme/widgets/pull/9#issuecomment-1"});
  auto c = client();
  auto view = kb::bot::gather_status(config_, &c);
  EXPECT_TRUE(view.forge_asked);
  const auto& saxpy = row(view, "saxpy");
  EXPECT_EQ(saxpy.state, "PR open");
  EXPECT_EQ(saxpy.pr_number, pr);
  EXPECT_EQ(saxpy.verified, "passed");
  EXPECT_GT(saxpy.speedup, 1.4);
  EXPECT_FALSE(saxpy.date.empty());
  EXPECT_EQ(row(view, transpose).state, "ignored");
  EXPECT_NE(row(view, transpose).note.find("@ada asked"), std::string::npos);
  for (const auto& k : view.kernels) {
    if (k.kernel != "saxpy" && k.kernel != transpose) {
      EXPECT_EQ(k.state, "not searched yet") << k.kernel;
    }
  }

  // Without the forge: the archive's word, and the PR column unknown.
  auto offline = kb::bot::gather_status(config_, nullptr);
  EXPECT_FALSE(offline.forge_asked);
  EXPECT_EQ(row(offline, "saxpy").state, "winner, no PR");
}

TEST_F(DashboardTest, ADeclinedPrIsShownWithItsNumber) {
  kb::search::DeclinedChanges(config_.resolve(config_.search.archive))
      .record({"saxpy", "sha256:ab", 1.5, 7, "https://github.com/acme/widgets/pull/7", "2026-11-20T10:00:00Z"});
  auto view = kb::bot::gather_status(config_, nullptr);
  EXPECT_EQ(row(view, "saxpy").state, "declined before");
  EXPECT_NE(row(view, "saxpy").note.find("#7 was closed without merging on 2026-11-20"), std::string::npos);
  const std::string body = kb::bot::render_dashboard(view, "2026-11-29T06:00:00Z");
  EXPECT_NE(body.find("### Declined\n\n- `saxpy`: #7 was closed"), std::string::npos) << body;
}

TEST_F(DashboardTest, TheBodyHasEveryKernelAndUntickedBoxesThatReadBackWhenTicked) {
  auto view = kb::bot::gather_status(config_, nullptr);
  const std::string body = kb::bot::render_dashboard(view, "2026-11-29T06:00:00Z");
  EXPECT_EQ(body.rfind(kb::bot::kDashboardMarker, 0), 0u);
  for (const auto& k : config_.kernels) {
    EXPECT_NE(body.find("| `" + k.name + "` |"), std::string::npos) << k.name;
    EXPECT_NE(body.find("- [ ] search `" + k.name + "` next run"), std::string::npos) << k.name;
  }
  EXPECT_NE(body.find("### Budget"), std::string::npos);
  EXPECT_TRUE(kb::bot::requested_searches(body).empty());
  std::string ticked = body;
  const std::string box = "- [ ] search `saxpy` next run";
  ticked.replace(ticked.find(box), box.size(), "- [x] search `saxpy` next run\r");
  EXPECT_EQ(kb::bot::requested_searches(ticked), std::set<std::string>{"saxpy"});
}

TEST_F(DashboardTest, TheIssueIsCreatedOnceThenUpdated) {
  auto c = client();
  auto first = kb::bot::publish_dashboard(c, std::string(kb::bot::kDashboardMarker) + "\nfirst");
  EXPECT_TRUE(first.created);
  auto second = kb::bot::publish_dashboard(c, std::string(kb::bot::kDashboardMarker) + "\nsecond");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.number, first.number);
  auto issues = gh_.issues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].title, kb::bot::kDashboardTitle);
  EXPECT_EQ(issues[0].labels, std::vector<std::string>{kb::bot::kDashboardLabel});
  EXPECT_NE(issues[0].body.find("second"), std::string::npos);
  EXPECT_EQ(gh_.count("POST", "/repos/acme/widgets/issues"), 1);
}

TEST_F(DashboardTest, TwoDashboardsFromARaceLeaveTheOldestOpen) {
  const std::string marked = std::string(kb::bot::kDashboardMarker) + "\nold";
  const int64_t older = gh_.add_issue(kb::bot::kDashboardTitle, marked, {kb::bot::kDashboardLabel});
  const int64_t newer = gh_.add_issue(kb::bot::kDashboardTitle, marked, {kb::bot::kDashboardLabel});
  gh_.add_issue("a person's issue", "kernelbot is great", {kb::bot::kDashboardLabel});  // no marker: not ours
  auto c = client();
  auto kept = kb::bot::publish_dashboard(c, std::string(kb::bot::kDashboardMarker) + "\nnew");
  EXPECT_EQ(kept.number, older);
  auto issues = gh_.issues();
  EXPECT_EQ(issues[static_cast<size_t>(older - 1001)].state, "open");
  EXPECT_NE(issues[static_cast<size_t>(older - 1001)].body.find("new"), std::string::npos);
  EXPECT_EQ(issues[static_cast<size_t>(newer - 1001)].state, "closed");
  EXPECT_NE(issues[static_cast<size_t>(newer - 1001)].comments.at(0).find("Duplicate of #" + std::to_string(older)),
            std::string::npos);
  EXPECT_EQ(issues[2].state, "open");
}

TEST_F(DashboardTest, ATickedBoxDropsTheIgnoreRequestBeforeTheRun) {
  ScopedEnv token("GITHUB_TOKEN", kDashboardToken);
  kb::search::IgnoredKernels(config_.resolve(config_.search.archive))
      .record({"saxpy",
               kb::search::source_fingerprint(read_text(config_.resolve(config_.find_kernel("saxpy")->source))), "ada",
               "u"});
  gh_.add_issue(kb::bot::kDashboardTitle,
                std::string(kb::bot::kDashboardMarker) +
                    "\n- [x] search `saxpy` next run\n- [ ] search `transpose` next run\n",
                {kb::bot::kDashboardLabel});
  EXPECT_EQ(kb::bot::dashboard_requests_before_run(config_), std::set<std::string>{"saxpy"});
  EXPECT_FALSE(kb::search::IgnoredKernels(config_.resolve(config_.search.archive)).of("saxpy"));

  // After the run the box is unticked again: the body is rewritten.
  kb::bot::update_dashboard_after_run(config_, false);
  ASSERT_EQ(gh_.issues().size(), 1u);
  EXPECT_TRUE(kb::bot::requested_searches(gh_.issues()[0].body).empty());
  EXPECT_NE(gh_.issues()[0].body.find("| `saxpy` | winner, no PR |"), std::string::npos) << gh_.issues()[0].body;
}

TEST_F(DashboardTest, ADryRunWritesTheBodyAndPostsNothing) {
  ScopedEnv token("GITHUB_TOKEN", kDashboardToken);
  kb::bot::update_dashboard_after_run(config_, true);
  EXPECT_TRUE(gh_.issues().empty());
  EXPECT_EQ(gh_.count("POST", "/repos/"), 0);
  EXPECT_EQ(gh_.count("PATCH", "/repos/"), 0);
  const std::string written = read_text(dir_ / ".kernelbot/prs/dashboard.md");
  EXPECT_EQ(written.rfind(kb::bot::kDashboardMarker, 0), 0u);
  EXPECT_NE(written.find("- [ ] search `saxpy` next run"), std::string::npos);
}

}  // namespace
