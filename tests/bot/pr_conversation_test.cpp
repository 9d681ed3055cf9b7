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

#include "bot/change/result_store.h"
#include "bot/forge/forge_factory.h"
#include "bot/forge/github_forge.h"
#include "bot/pr/pr_lifecycle.h"
#include "bot/pr_comments/comment_claim.h"
#include "bot/pr_comments/pr_command_actions.h"
#include "bot/pr_comments/pr_conversation.h"
#include "bot/publish/publish.h"
#include "common/clock.h"
#include "common/sha256.h"
#include "config/config_loader.h"
#include "search/archive/ignored_kernels.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/support/scoped_env.h"

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
  std::vector<kb::bot::AnsweredComment> converse(const kb::bot::ConversationOptions& options = {}, bool dry_run = false,
                                                 SimulatedEvaluator* on = nullptr) {
    auto forge = github_forge();
    auto talk = client();
    SimulatedEvaluator own(saxpy_cost(saxpy_winner_as_searched()));
    kb::bot::RunCommandActions actions(config_, *forge, *talk, on ? on : &own, dry_run);
    return kb::bot::answer_pr_commands(*talk, actions, options);
  }
  std::unique_ptr<kb::bot::GitHubForge> github_forge() {
    return std::make_unique<kb::bot::GitHubForge>(config_.github, std::move(*kb::bot::GitRepo::discover(work_)),
                                                  "origin", kConversationToken, client());
  }
  // What an earlier night did: the archived winner published as PR #1 (pushed, body with its
  // measured-on lines), re-verified on the simulated GPU.
  void open_the_pr() {
    SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
    auto forge = github_forge();
    auto done = kb::bot::publish_result(config_, *config_.find_kernel("saxpy"), result_, *forge,
                                        {&gpu, "kernelbot run"});
    ASSERT_TRUE(done.published) << done.note;
    ASSERT_EQ(gh_.pulls().size(), 1u);
  }
  // Someone changes the kernel's file on main (and the checkout follows, as the next night's has).
  std::string move_main(const std::string& from, const std::string& to) {
    std::string text = read_text(work_ / "src/saxpy.cu");
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    kb::bot::GitRepo::discover(work_)->commit_on_branch("main", "main", {{"src/saxpy.cu", text}}, "main moves", "Ada",
                                                        "ada@example.com");
    write_text(work_ / "src/saxpy.cu", text);
    return text;
  }
  // A night whose search of the new code found nothing faster: the open PR follows the base.
  kb::bot::PublishOutcome night_without_a_winner(SimulatedEvaluator& gpu) {
    auto searched = result_;
    searched.best_id.clear();
    searched.tree.resize(1);
    searched.tree.front().variant.source = read_text(work_ / "src/saxpy.cu");
    auto forge = github_forge();
    return kb::bot::publish_result(config_, *config_.find_kernel("saxpy"), searched, *forge, {&gpu, "kernelbot run"});
  }
  kb::testing::FakePull the_pr() const { return gh_.pulls().at(static_cast<size_t>(pr_ - 1)); }
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

// Another run claimed the comment five minutes ago and is still at work: its claim is respected.
TEST_F(PrConversationTest, AFreshClaimOfAnotherRunIsRespected) {
  const int64_t asked = gh_.add_comment(pr_, "ada", "@kernelbot explain");
  const int64_t claim = gh_.add_bot_reaction(asked, "eyes", kb::iso8601_utc(std::time(nullptr) - 5 * 60));
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "taken by another run");
  EXPECT_FALSE(rows[0].took_over);
  EXPECT_TRUE(replies().empty());
  EXPECT_EQ(gh_.count("DELETE", "/repos/acme/widgets/issues/comments/"), 0);
  ASSERT_EQ(gh_.comments_on(pr_)[0].reaction_meta.size(), 1u);
  EXPECT_EQ(gh_.comments_on(pr_)[0].reaction_meta[0].first, claim) << "the other run's claim stands";
}

// The run that claimed the comment two hours ago died before replying. Two runs find the stale
// claim at once: exactly one takes it over and answers; the comment is answered once.
TEST_F(PrConversationTest, AStaleClaimIsTakenOverAndAnsweredOnceEvenByTwoRunsAtOnce) {
  const int64_t asked = gh_.add_comment(pr_, "ada", "@kernelbot explain");
  const int64_t stale = gh_.add_bot_reaction(asked, "eyes", kb::iso8601_utc(std::time(nullptr) - 2 * 3600));
  LoopbackResponse late;
  late.delay_s = 1.0;  // both runs list the comment before either has replied
  for (int run = 0; run < 2; ++run)
    gh_.add_fault({"GET", "/repos/acme/widgets/issues/" + std::to_string(pr_) + "/comments", late, true});
  std::vector<kb::bot::AnsweredComment> a, b;
  {
    std::jthread first([&] { a = converse(); });
    std::jthread second([&] { b = converse(); });
  }
  auto said = replies();
  ASSERT_EQ(said.size(), 1u) << "answered once";
  EXPECT_NE(said[0].body.find(kb::bot::answered_marker(asked)), std::string::npos);
  int answered = 0, taken = 0;
  for (const auto& rows : {a, b})
    for (const auto& r : rows) {
      answered += r.outcome == "answered";
      taken += r.outcome == "taken by another run";
    }
  EXPECT_EQ(answered, 1);
  EXPECT_EQ(taken, 1);
  // The stale reaction is gone; the claim now is one fresh reaction of the bot.
  const auto reactions = gh_.comments_on(pr_)[0].reaction_meta;
  ASSERT_EQ(reactions.size(), 1u);
  EXPECT_NE(reactions[0].first, stale);
  const auto when = kb::bot::parse_github_time(reactions[0].second);
  ASSERT_TRUE(when);
  EXPECT_LT(std::time(nullptr) - *when, kb::bot::kClaimLeaseSeconds);
  EXPECT_TRUE(converse().empty()) << "the reply's marker: nothing left to answer";
}

TEST(CommentClaimRules, GitHubTimesAreReadAsUtc) {
  EXPECT_EQ(kb::bot::parse_github_time("1970-01-01T00:00:00Z"), std::time_t{0});
  EXPECT_EQ(kb::bot::parse_github_time("2016-05-20T20:09:31Z"), std::time_t{1463774971});
  EXPECT_FALSE(kb::bot::parse_github_time("2016-05-20T20:09:31+02:00"));
  EXPECT_FALSE(kb::bot::parse_github_time("yesterday"));
  EXPECT_FALSE(kb::bot::parse_github_time(""));
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
  open_the_pr();
  const std::string before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  const auto text_before = file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu");
  gh_.add_commit(pr_, {"0123456789ab0000", "kernelbot", config_.github.author_email, ""});
  gh_.add_comment(pr_, "ada", "@kernelbot rebase");
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered") << rows[0].reply;
  // Nothing moved on the base: the same text, committed again on it, re-measured and pushed.
  EXPECT_NE(ref_target(bare_, "refs/heads/kernelbot/saxpy"), before);
  EXPECT_EQ(file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), text_before);
  EXPECT_EQ(commit_info(bare_, "refs/heads/kernelbot/saxpy").parent, ref_target(work_, "refs/heads/main"));
}

// The base changed the kernel's file elsewhere (its first line) since the PR was measured: the
// change is replayed onto the new base by a three-way merge, the merged text is re-verified and
// re-measured there, pushed on top of the new base, and the PR's title, tables and measured-on
// line describe it. The text measured is exactly the text pushed.
TEST_F(PrConversationTest, RebaseReplaysTheChangeOntoABaseThatChangedTheFileElsewhereAndReMeasuresIt) {
  open_the_pr();
  const std::string new_base = move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  const std::string main_commit = ref_target(work_, "refs/heads/main");
  gh_.add_comment(pr_, "ada", "@kernelbot rebase");
  SimulatedEvaluator gpu(saxpy_cost(SimBehaviour{62.5, false, false, false}));
  auto rows = converse({}, false, &gpu);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "answered") << rows[0].reply;
  EXPECT_NE(rows[0].reply.find("replayed this change onto `main` and re-measured it there"), std::string::npos)
      << rows[0].reply;
  EXPECT_NE(rows[0].reply.find("**1.600x**"), std::string::npos) << rows[0].reply;

  const auto pushed = file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu");
  ASSERT_TRUE(pushed);
  EXPECT_NE(pushed->find("(BLAS level 1)"), std::string::npos) << "the base's change is kept";
  EXPECT_NE(pushed->find("saxpy_vec4_kernel"), std::string::npos) << "the PR's change is kept";
  EXPECT_EQ(commit_info(bare_, "refs/heads/kernelbot/saxpy").parent, main_commit) << "on top of the new base";
  // What was measured is what was pushed, against what the base holds.
  const auto measured = gpu.fully_evaluated_sources();
  ASSERT_FALSE(measured.empty());
  EXPECT_EQ(measured.front(), *pushed);

  const auto pull = the_pr();
  EXPECT_EQ(pull.state, "open");
  EXPECT_EQ(pull.title, "kernelbot: saxpy 1.600x faster");
  EXPECT_EQ(kb::bot::parse_measured_on(pull.body).at("src/saxpy.cu"), "sha256:" + kb::sha256_hex(new_base));
  auto marker = kb::bot::parse_change_marker(pull.body);
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->change_id, kb::bot::change_id_of({{"src/saxpy.cu", *pushed}}));
  EXPECT_NEAR(marker->speedup, 1.6, 1e-3);
  EXPECT_NE(pull.body.find("after it was rebased onto `main`"), std::string::npos) << pull.body;
  EXPECT_NE(pull.body.find("| **1.600x**"), std::string::npos) << "the Timing table is the new one:\n" << pull.body;
  EXPECT_NE(pull.body.find("**`saxpy` is 1.600x faster**"), std::string::npos) << pull.body;
  EXPECT_EQ(pull.body.find("**`saxpy` is 1.550x faster**"), std::string::npos) << pull.body;
  EXPECT_EQ(pull.body.find("The search had measured its winner"), std::string::npos) << "the old evidence is gone";
  EXPECT_NE(pull.body.find("### Reproduce"), std::string::npos) << "the rest of the body is kept";
}

// Who may rebase is GitHub's word: triage access is refused, and nothing is merged, measured or pushed.
TEST_F(PrConversationTest, ARebaseFromSomeoneWithoutWriteAccessChangesNothing) {
  open_the_pr();
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  const std::string pushed_before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  const std::string body_before = the_pr().body;
  gh_.add_comment(pr_, "tom", "@kernelbot rebase");
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  auto rows = converse({}, false, &gpu);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "refused");
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed_before);
  EXPECT_EQ(the_pr().body, body_before);
  EXPECT_TRUE(gpu.fully_evaluated_sources().empty());
}

// A rebench measures the archived winner against the base as it is: on a base that changed the
// file it says so, and points to the command that replays the PR's own change.
TEST_F(PrConversationTest, RebenchOnAMovedBaseSaysSoAndPointsToRebase) {
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  gh_.add_comment(pr_, "ada", "@kernelbot rebench");
  auto rows = converse();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "failed");
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_NE(replies()[0].body.find("`@kernelbot rebase` replays the change onto it"), std::string::npos)
      << replies()[0].body;
}

// `kernelbot run --dry-run`: the rebase is merged and measured as in a real run, but nothing is
// pushed, posted, reacted to or closed; the reply and what the PR would become are written down.
TEST_F(PrConversationTest, ADryRunRebaseMergesAndMeasuresAndWritesWhatItWouldPost) {
  open_the_pr();
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  gh_.add_comment(pr_, "ada", "@kernelbot rebase");
  const std::string pushed_before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  const std::string body_before = the_pr().body;
  const int writes = gh_.count("POST", "/repos/") + gh_.count("PATCH", "/repos/") + gh_.count("DELETE", "/repos/");
  ScopedEnv token("GITHUB_TOKEN", kConversationToken);
  auto forge = kb::bot::make_forge(config_, true);
  ASSERT_EQ(forge->name(), "dry-run");
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  auto rows = kb::bot::converse_before_run(config_, *forge, &gpu, true);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(gh_.count("POST", "/repos/") + gh_.count("PATCH", "/repos/") + gh_.count("DELETE", "/repos/"), writes)
      << "a dry run changes nothing on GitHub";
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed_before) << "nothing pushed";
  EXPECT_EQ(the_pr().body, body_before);
  EXPECT_TRUE(replies().empty());
  EXPECT_FALSE(gpu.fully_evaluated_sources().empty()) << "measured, as a run would";

  const std::string reply = read_text(work_ / ".kernelbot/prs/conversation.md");
  EXPECT_NE(reply.find("re-measured it there"), std::string::npos) << reply;
  EXPECT_NE(reply.find("kernelbot would push it (dry run)"), std::string::npos) << reply;
  const std::string would = read_text(work_ / ".kernelbot/prs/rebases.md");
  EXPECT_NE(would.find("## Would force-push kernelbot/saxpy"), std::string::npos) << would;
  EXPECT_NE(would.find("after it was rebased onto `main`"), std::string::npos) << would;
  EXPECT_NE(would.find(kb::bot::measured_on_marker("src/saxpy.cu", read_text(work_ / "src/saxpy.cu"))),
            std::string::npos)
      << would;
}

// The base rewrote the very lines the PR changes: the change no longer applies. The PR is
// closed with a note naming the file whose merge conflicts, and nothing is pushed.
TEST_F(PrConversationTest, ANightWithoutAWinnerClosesThePrNamingTheFileWhenItsRebaseConflicts) {
  open_the_pr();
  const std::string pushed_before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  move_main("saxpy_kernel<<<grid, SAXPY_BLOCK>>>(x, y, a, n);",
            "saxpy_kernel<<<grid, SAXPY_BLOCK, 0, 0>>>(x, y, a, n);");
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  auto done = night_without_a_winner(gpu);
  EXPECT_EQ(done.withheld, "base moved") << done.note;
  EXPECT_NE(done.note.find("conflicts in src/saxpy.cu"), std::string::npos) << done.note;
  const auto pull = the_pr();
  EXPECT_EQ(pull.state, "closed");
  ASSERT_EQ(pull.comments.size(), 1u);
  EXPECT_NE(pull.comments[0].find("conflicts in `src/saxpy.cu`"), std::string::npos) << pull.comments[0];
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed_before);
  EXPECT_TRUE(gpu.fully_evaluated_sources().empty()) << "nothing to measure";
}

// The change still applies, but on the new base it is no longer faster: closed with the new numbers.
TEST_F(PrConversationTest, ANightWithoutAWinnerClosesThePrWithTheNewNumbersWhenTheRebasedWinIsGone) {
  open_the_pr();
  const std::string pushed_before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  SimulatedEvaluator gpu(saxpy_cost(SimBehaviour{99.0, false, false, false}));
  auto done = night_without_a_winner(gpu);
  EXPECT_EQ(done.withheld, "base moved") << done.note;
  const auto pull = the_pr();
  EXPECT_EQ(pull.state, "closed");
  ASSERT_EQ(pull.comments.size(), 1u);
  const std::string& note = pull.comments[0];
  EXPECT_NE(note.find("re-measured it there on"), std::string::npos) << note;
  EXPECT_NE(note.find("the win is gone"), std::string::npos) << note;
  EXPECT_NE(note.find("| Size | Original | This PR | Speedup |"), std::string::npos) << note;
  EXPECT_NE(note.find("99.00 us"), std::string::npos) << "the new numbers: " << note;
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed_before) << "nothing pushed";
}

// The same night, where the change still wins on the new base: rebased, pushed and updated, not closed.
TEST_F(PrConversationTest, ANightWithoutAWinnerRebasesTheOpenPrWhenTheBaseMovedUnderIt) {
  open_the_pr();
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  const std::string main_commit = ref_target(work_, "refs/heads/main");
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  auto done = night_without_a_winner(gpu);
  EXPECT_EQ(done.withheld, "") << done.note;
  EXPECT_NE(done.note.find("rebased #1 onto main"), std::string::npos) << done.note;
  EXPECT_EQ(the_pr().state, "open");
  EXPECT_TRUE(the_pr().comments.empty());
  EXPECT_EQ(commit_info(bare_, "refs/heads/kernelbot/saxpy").parent, main_commit);
  // The next night finds the PR measured on the base as it is: nothing to do.
  const int patches = gh_.count("PATCH", "/repos/acme/widgets/pulls/");
  SimulatedEvaluator again(saxpy_cost(saxpy_winner_as_searched()));
  auto next = night_without_a_winner(again);
  EXPECT_EQ(next.note.find("rebased"), std::string::npos) << next.note;
  EXPECT_EQ(gh_.count("PATCH", "/repos/acme/widgets/pulls/"), patches);
  EXPECT_TRUE(again.fully_evaluated_sources().empty());
}

// A person's commit on the branch: the bot never rebases over it; it says once what moved.
TEST_F(PrConversationTest, ANightWithoutAWinnerLeavesABranchWithAPersonsCommitsToThePerson) {
  open_the_pr();
  gh_.add_commit(pr_, {"a1b2c3d4e5f60000", "Ada Reviewer", "ada@example.com", ""});
  const std::string pushed_before = ref_target(bare_, "refs/heads/kernelbot/saxpy");
  move_main("// saxpy: y = a * x + y.", "// saxpy: y = a * x + y (BLAS level 1).");
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  EXPECT_EQ(night_without_a_winner(gpu).withheld, "left to a person");
  night_without_a_winner(gpu);
  EXPECT_EQ(the_pr().state, "open");
  ASSERT_EQ(the_pr().comments.size(), 1u) << "said once";
  EXPECT_NE(the_pr().comments[0].find("a1b2c3d4e5f6 by Ada Reviewer"), std::string::npos) << the_pr().comments[0];
  EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), pushed_before);
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
