// The conversation on the bot's PRs, end to end against the fake GitHub on loopback and a git
// copy of examples/: commands from people with write access are carried out (rebench and rebase
// on the simulated GPU, through the real GitHub forge) and answered once, even by two runs at
// once; anyone else is answered with a refusal; rate limits are waited out; a dry run writes its
// replies to a file and posts nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "bot/github_forge.h"
#include "bot/pr_command_actions.h"
#include "bot/pr_conversation.h"
#include "bot/result_store.h"
#include "config/config_loader.h"
#include "search/ignored_kernels.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const std::string kConversationToken = "ghs_conversation_token";

class PrConversationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_conversation_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    fs::create_directories(work_);
    const fs::path examples = fs::path(KB_SOURCE_DIR) / "examples";
    for (const char* part : {"src", "include", "kernelbot.toml"})
      fs::copy(examples / part, work_ / part, fs::copy_options::recursive);
    init_repo_with_commit(work_);
    bare_ = dir_ / "remote.git";
    init_bare_repo(bare_);
    add_remote(work_, "origin", bare_.string());
    config_ = kb::config::load_config(work_ / "kernelbot.toml");
    config_.github.repository = "acme/widgets";
    config_.github.api_url = gh_.api_url();
    config_.github.max_open_prs = 10;
    result_ = nlohmann::json::parse(read_text(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json"))
                  .get<kb::search::SearchResult>();
    kb::bot::save_result(config_.root, result_, nullptr);  // what an earlier run archived
    pr_ = gh_.add_pull("kernelbot/saxpy", "kernelbot: saxpy 1.55x faster");
    gh_.set_permission("ada", "maintain");
    gh_.set_permission("tom", "triage");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<kb::bot::GitHubClient> client() {
    kb::bot::GitHubRetryPolicy policy;
    policy.sleep = [this](double s) { slept_ += s; };
    return std::make_unique<kb::bot::GitHubClient>(gh_.api_url(), "acme/widgets", kConversationToken, policy);
  }
  // One run's conversation step: its own client, forge and simulated GPU, as a separate process has.
  std::vector<kb::bot::AnsweredComment> converse(const kb::bot::ConversationOptions& options = {},
                                                 bool dry_run = false) {
    auto forge_client = client();
    kb::bot::GitHubForge forge(config_.github, std::move(*kb::bot::GitRepo::discover(work_)), "origin",
                               kConversationToken, std::move(forge_client));
    auto talk = client();
    SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
    kb::bot::RunCommandActions actions(config_, forge, *talk, &gpu, dry_run);
    return kb::bot::answer_pr_commands(*talk, actions, options);
  }
  // The bot's replies on the PR.
  std::vector<FakeComment> replies() const {
    std::vector<FakeComment> out;
    for (const auto& c : gh_.comments_on(pr_))
      if (c.user == FakeGitHub::kBotLogin) out.push_back(c);
    return out;
  }

  FakeGitHub gh_{"acme/widgets", kConversationToken};
  fs::path dir_, work_, bare_;
  kb::config::Config config_;
  kb::search::SearchResult result_;
  int64_t pr_ = 0;
  std::atomic<double> slept_ = 0;  // two runs at once sleep from two threads
};

TEST_F(PrConversationTest, RebenchFromAMaintainerReMeasuresUpdatesThePrAndIsAnsweredOnce) {
  const int64_t asked = gh_.add_comment(pr_, "ada", "Base got a new driver.\n\n@kernelbot rebench");
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered") << rows[0].reply;
  EXPECT_EQ(rows[0].command, "rebench");
  auto said = replies();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].body.find("@ada `rebench`: re-measured `src/saxpy.cu` against `main`"), 0u) << said[0].body;
  EXPECT_NE(said[0].body.find("| Size | Original | This PR | Speedup |"), std::string::npos) << said[0].body;
  EXPECT_NE(said[0].body.find(kb::bot::answered_marker(asked)), std::string::npos);
  // The PR itself now carries the new measurement and the text it was measured on.
  const auto pull = gh_.pulls()[static_cast<size_t>(pr_ - 1)];
  EXPECT_NE(pull.body.find("<!-- kernelbot-measured-on: src/saxpy.cu sha256:"), std::string::npos) << pull.body;
  EXPECT_TRUE(file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu").has_value()) << "pushed";
  // The claim: the bot's "eyes" on the comment.
  EXPECT_EQ(gh_.comments_on(pr_)[0].reactions, std::vector<std::string>{std::string(FakeGitHub::kBotLogin) + ":eyes"});

  // The next run finds the reply's marker: no reaction, no permission question, no second reply.
  const int reactions = gh_.count("POST", "/repos/acme/widgets/issues/comments/");
  EXPECT_TRUE(converse().empty());
  EXPECT_EQ(replies().size(), 1u);
  EXPECT_EQ(gh_.count("POST", "/repos/acme/widgets/issues/comments/"), reactions);
}

TEST_F(PrConversationTest, SomeoneWithoutWriteAccessIsToldSoAndNothingIsDone) {
  gh_.add_comment(pr_, "tom", "@kernelbot ignore");
  gh_.add_comment(pr_, "stranger", "@kernelbot ignore");  // no collaborator: GitHub answers 404
  auto rows = converse();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].outcome, "refused");
  EXPECT_EQ(rows[1].outcome, "refused");
  auto said = replies();
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[0].body.find("only from people with write access"), std::string::npos) << said[0].body;
  EXPECT_NE(said[0].body.find("`triage`"), std::string::npos) << said[0].body;
  EXPECT_NE(said[1].body.find("`none`"), std::string::npos) << said[1].body;
  EXPECT_FALSE(kb::search::IgnoredKernels(config_.resolve(config_.search.archive)).of("saxpy"));
}

TEST_F(PrConversationTest, TwoRunsAtOnceAnswerAFewCommentsEachExactlyOnce) {
  gh_.add_comment(pr_, "ada", "@kernelbot explain");
  gh_.add_comment(pr_, "ada", "@kernelbot help");
  // Both runs read the comments before either has answered: each listing is made when asked
  // and delivered late, so neither sees the other's reply.
  LoopbackResponse late;
  late.delay_s = 1.0;  // ample for the other run's listing to arrive, also under a sanitizer
  for (int run = 0; run < 2; ++run)
    gh_.add_fault({"GET", "/repos/acme/widgets/issues/" + std::to_string(pr_) + "/comments", late, true});
  std::vector<kb::bot::AnsweredComment> a, b;
  {
    std::jthread first([&] { a = converse(); });
    std::jthread second([&] { b = converse(); });
  }
  auto said = replies();
  ASSERT_EQ(said.size(), 2u) << "each comment answered once";
  EXPECT_NE(said[0].body.find("@ada `"), std::string::npos);
  int answered = 0, taken = 0;
  for (const auto& rows : {a, b})
    for (const auto& r : rows) {
      answered += r.outcome == "answered";
      taken += r.outcome == "taken by another run";
    }
  EXPECT_EQ(answered, 2);
  EXPECT_EQ(taken, 2) << "both runs saw both comments unanswered; the reaction decided";
}

TEST_F(PrConversationTest, AnUnknownCommandIsAnsweredWithHelp) {
  gh_.add_comment(pr_, "ada", "@kernelbot merge it");
  converse();
  auto said = replies();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].body.find("does not know `merge`"), std::string::npos) << said[0].body;
  EXPECT_NE(said[0].body.find("`@kernelbot rebench`"), std::string::npos) << said[0].body;
}

TEST_F(PrConversationTest, ExplainTellsThePathOfIdeasFromTheArchivedResult) {
  add_simulated_reverification(config_, result_);
  kb::bot::save_result(config_.root, result_, nullptr);
  gh_.add_comment(pr_, "ada", "@kernelbot explain");
  converse();
  auto said = replies();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].body.find("Use 256-thread blocks"), std::string::npos) << said[0].body;
  EXPECT_NE(said[0].body.find("Vectorize: 16-byte float4 loads"), std::string::npos) << said[0].body;
  EXPECT_EQ(said[0].body.find("Compile with --use_fast_math |"), std::string::npos) << "not on the winner's path";
  EXPECT_NE(said[0].body.find("re-verified by `kernelbot run`"), std::string::npos) << said[0].body;
}

TEST_F(PrConversationTest, IgnoreHoldsUntilTheSourceChangesAndUnignoreUndoesIt) {
  const auto& spec = *config_.find_kernel("saxpy");
  gh_.add_comment(pr_, "ada", "@kernelbot ignore");
  converse();
  EXPECT_NE(kb::bot::ignored_on_request(config_, spec).find("@ada asked"), std::string::npos);
  EXPECT_NE(replies().at(0).body.find("leaves `saxpy` alone until `src/saxpy.cu` changes"), std::string::npos);

  gh_.add_comment(pr_, "ada", "@kernelbot unignore");
  converse();
  EXPECT_EQ(kb::bot::ignored_on_request(config_, spec), "");
  EXPECT_NE(replies().at(1).body.find("searches `saxpy` again"), std::string::npos) << replies().at(1).body;

  gh_.add_comment(pr_, "ada", "@kernelbot ignore");
  converse();
  ASSERT_NE(kb::bot::ignored_on_request(config_, spec), "");
  write_text(work_ / "src/saxpy.cu", read_text(work_ / "src/saxpy.cu") + "\n// new code\n");
  EXPECT_EQ(kb::bot::ignored_on_request(config_, spec), "") << "new source: searched again";
  EXPECT_FALSE(kb::search::IgnoredKernels(config_.resolve(config_.search.archive)).of("saxpy"));
}

TEST_F(PrConversationTest, RebaseIsRefusedWhenAPersonPushedToTheBranch) {
  gh_.add_commit(pr_, {"a1b2c3d4e5f60000", "Ada Reviewer", "ada@example.com", ""});
  gh_.add_comment(pr_, "ada", "@kernelbot rebase");
  const std::string body_before = gh_.pulls()[static_cast<size_t>(pr_ - 1)].body;
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "failed");
  auto said = replies();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].body.find("never force-pushes over a person's work"), std::string::npos) << said[0].body;
  EXPECT_NE(said[0].body.find("a1b2c3d4e5f6 by Ada Reviewer <ada@example.com>"), std::string::npos);
  EXPECT_FALSE(file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu").has_value()) << "nothing pushed";
  EXPECT_EQ(gh_.pulls()[static_cast<size_t>(pr_ - 1)].body, body_before);
}

TEST_F(PrConversationTest, RebaseOfTheBotsOwnBranchReMeasuresAndPushes) {
  gh_.add_commit(pr_, {"0123456789ab0000", "kernelbot", config_.github.author_email, ""});
  gh_.add_comment(pr_, "ada", "@kernelbot rebase");
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered") << rows[0].reply;
  EXPECT_TRUE(file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu").has_value());
}

TEST_F(PrConversationTest, RateLimitsAreWaitedOutWithGitHubsHeaders) {
  gh_.add_comment(pr_, "ada", "@kernelbot help");
  const std::string reset = std::to_string(std::time(nullptr) + 2);
  // The primary limit on the listing, then a secondary limit on the claim.
  gh_.add_fault(
      {"GET", "/repos/acme/widgets/issues/",
       json_response(
           403,
           R"({"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})",
           {{"x-ratelimit-limit", "5000"},
            {"x-ratelimit-remaining", "0"},
            {"x-ratelimit-reset", reset},
            {"x-ratelimit-resource", "core"}})});
  gh_.add_fault(
      {"POST", "/repos/acme/widgets/issues/comments/",
       json_response(
           429,
           R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})",
           {{"Retry-After", "3"}})});
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered");
  EXPECT_EQ(replies().size(), 1u);
  EXPECT_GE(slept_, 3.0) << "Retry-After was honoured";
  EXPECT_EQ(gh_.count("POST", "/repos/acme/widgets/issues/comments/"), 2) << "the claim was sent again, once";
}

TEST_F(PrConversationTest, ADryRunWritesItsRepliesAndPostsNothing) {
  gh_.add_comment(pr_, "ada", "@kernelbot ignore");
  kb::bot::ConversationOptions options;
  options.dry_run_file = dir_ / "conversation.md";
  auto rows = converse(options, true);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(replies().empty());
  EXPECT_EQ(gh_.count("POST", "/repos/"), 0);
  const std::string written = read_text(options.dry_run_file);
  EXPECT_NE(written.find("## Reply on #1 to comment"), std::string::npos) << written;
  EXPECT_NE(written.find("would leave `saxpy` alone"), std::string::npos) << written;
  EXPECT_FALSE(kb::search::IgnoredKernels(config_.resolve(config_.search.archive)).of("saxpy"));
}

}  // namespace

namespace {

TEST_F(PrConversationTest, AJobWithoutAGpuLeavesRebenchUnclaimedForTheNextRun) {
  gh_.add_comment(pr_, "ada", "@kernelbot rebench");
  kb::bot::ConversationOptions no_gpu;
  no_gpu.measures = false;
  EXPECT_TRUE(converse(no_gpu).empty());
  EXPECT_TRUE(gh_.comments_on(pr_)[0].reactions.empty()) << "not claimed";
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered");
}

}  // namespace
