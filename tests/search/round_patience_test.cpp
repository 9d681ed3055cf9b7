// When a search stops for lack of progress: [search].patience rounds without gain in a row, never
// one flat round by default, and never a round lost to protocol errors (round_patience.h), both
// on the counter alone and through the engine.
#include "search/engine/round_patience.h"

#include <gtest/gtest.h>

#include <set>

#include "core/number_format.h"
#include "search/engine/search_engine.h"
#include "tests/search/scripted_proposer.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::idea;
using kb::testing::request_for;
using kb::testing::ScriptedProposer;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;
using kb::testing::timed_variant;

TEST(RoundPatience, OneFlatRoundIsNotEnoughByDefault) {
  RoundPatience patience(0.01, 2);
  EXPECT_EQ(patience.after_round({1, 1.0, 1.0, ""}), "");  // a flat first round
  EXPECT_EQ(patience.without_gain(), 1);
  EXPECT_EQ(patience.after_round({2, 1.0, 1.5, ""}), "");  // a gain resets the count
  EXPECT_EQ(patience.without_gain(), 0);
  EXPECT_EQ(patience.after_round({3, 1.5, 1.505, ""}), "");  // +0.3%: under min_round_gain
  EXPECT_EQ(patience.after_round({4, 1.505, 1.505, ""}), "no gain in rounds 3 and 4 (patience 2): best " +
                                                             format_speedup(1.505) + ", " + format_speedup(1.5) +
                                                             " before round 3 (min_round_gain 0.01)");
}

TEST(RoundPatience, ALostRoundCountsNeitherWay) {
  RoundPatience patience(0.01, 2);
  EXPECT_EQ(patience.after_round({1, 1.0, 1.0, ""}), "");
  EXPECT_EQ(patience.after_round({2, 1.0, 1.0, "the ideas request failed: HTTP 503"}), "");
  EXPECT_EQ(patience.without_gain(), 1);  // neither reset nor counted
  ASSERT_EQ(patience.lost_rounds().size(), 1u);
  EXPECT_EQ(patience.lost_rounds()[0], "round 2 lost to protocol errors (the ideas request failed: HTTP 503)");
  std::string reason = patience.after_round({3, 1.0, 1.0, ""});
  EXPECT_EQ(reason.rfind("no gain in rounds 1 and 3 (patience 2)", 0), 0u) << reason;
}

TEST(RoundPatience, ALostRoundThatGainedIsAGain) {
  RoundPatience patience(0.01, 1);
  EXPECT_EQ(patience.after_round({1, 1.0, 2.0, "half the requests failed"}), "");
  EXPECT_TRUE(patience.lost_rounds().empty());
}

TEST(RoundPatience, PatienceOneStopsAfterOneFlatRoundAndZeroNever) {
  RoundPatience one(0.05, 1);
  EXPECT_EQ(one.after_round({2, 2.0, 2.04, ""}), "no gain in round 2: best " + format_speedup(2.04) + " after " +
                                                     format_speedup(2.0) + " (min_round_gain 0.05)");
  RoundPatience never(0.05, 0);
  for (int64_t r = 1; r <= 10; ++r) EXPECT_EQ(never.after_round({r, 2.0, 2.0, ""}), "");
  EXPECT_EQ(never.without_gain(), 10);
}

TEST(RoundPatience, MinRoundGainZeroMakesEveryRoundAGain) {
  RoundPatience patience(0, 1);
  EXPECT_EQ(patience.after_round({1, 1.0, 1.0, ""}), "");
  EXPECT_EQ(patience.without_gain(), 0);
}

namespace {

// One idea a round, whose one branch in round r runs in time(r) us (the original: 100 us).
ScriptedProposer::IdeaScript one_idea() {
  return [](const ProposalContext&) { return std::vector<ProposedIdea>{idea("vectorize", "memory_access")}; };
}
ScriptedProposer::BranchScript timed_by_round(std::function<double(int64_t)> time) {
  return [time](const BranchRequest& r) {
    const int64_t round = std::stoll(r.id_prefix.substr(1, r.id_prefix.find('-') - 1));
    return std::vector<Branch>{Branch{timed_variant(time(round), r.id_prefix), ""}};
  };
}
ScriptedProposer flat_then(std::function<double(int64_t)> time) {
  return ScriptedProposer(one_idea(), timed_by_round(std::move(time)));
}

// A scripted proposer whose ideas request fails in the rounds listed.
class LosingProposer : public ScriptedProposer {
 public:
  LosingProposer(std::function<double(int64_t)> time, std::set<int64_t> lost_rounds)
      : ScriptedProposer(one_idea(), timed_by_round(std::move(time))), lost_rounds_(std::move(lost_rounds)) {}
  std::vector<ProposedIdea> propose_ideas(const ProposalContext& ctx) override {
    auto ideas = ScriptedProposer::propose_ideas(ctx);
    lost_ = lost_rounds_.count(ctx.round) ? "the ideas request failed: HTTP 503 after 6 attempts" : "";
    if (!lost_.empty()) ideas.clear();
    return ideas;
  }
  std::string ideas_lost() const override { return lost_; }

 private:
  std::set<int64_t> lost_rounds_;
  std::string lost_;
};

}  // namespace

TEST(RoundPatienceSearch, AFlatFirstRoundDoesNotEndTheSearch) {
  TestProject p;
  p.config.search.min_round_gain = config::SearchConfig{}.min_round_gain;  // the defaults: 0.01 and patience 2
  p.config.search.patience = config::SearchConfig{}.patience;
  p.config.search.rounds = 5;
  SimulatedEvaluator e;
  // Round 1 finds nothing faster (101 us against 100); round 2 halves the time; 3 and 4 are flat.
  auto proposer = flat_then([](int64_t r) {
    return r == 1 ? 101.0 : r == 2 ? 50.0 : 50.0 - 0.1 * static_cast<double>(r);
  });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop, SearchStop::no_gain);
  EXPECT_EQ(result.rounds_run, 4);
  EXPECT_EQ(proposer.contexts.size(), 4u);
  EXPECT_EQ(result.stop_reason.rfind("no gain in rounds 3 and 4 (patience 2)", 0), 0u) << result.stop_reason;
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->id.substr(0, 2), "r4");
}

TEST(RoundPatienceSearch, RoundsLostToFailedRequestsDoNotCountAndTheSearchGoesOn) {
  TestProject p;
  p.config.search.min_round_gain = 0.01;
  p.config.search.patience = 2;
  p.config.search.rounds = 5;
  SimulatedEvaluator e;
  // Every round 50 us (2x from round 1 on), but rounds 2 and 3 lose their ideas request.
  LosingProposer proposer([](int64_t) { return 50.0; }, {2, 3});
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(proposer.contexts.size(), 5u);  // the lost rounds did not stop it: 4 and 5 are the two flat ones
  EXPECT_EQ(result.stop, SearchStop::no_gain);
  EXPECT_EQ(result.stop_reason.rfind("no gain in rounds 4 and 5 (patience 2)", 0), 0u) << result.stop_reason;
}

TEST(RoundPatienceSearch, BranchesLostToProtocolErrorsMakeALostRound) {
  TestProject p;
  p.config.search.min_round_gain = 0.01;
  p.config.search.patience = 1;
  p.config.search.rounds = 3;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext&) { return std::vector<ProposedIdea>{idea("vectorize", "memory_access")}; },
      [](const BranchRequest& r) {
        if (r.id_prefix.rfind("r2", 0) == 0)
          return std::vector<Branch>{Branch{std::nullopt, "model request failed: HTTP 502", true},
                                     Branch{std::nullopt, "the reply contains no code", true}};
        return std::vector<Branch>{Branch{timed_variant(r.id_prefix == "r1-i0" ? 50.0 : 25.0, r.id_prefix), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  // With patience 1, a flat round 2 would have stopped the search; a lost one does not.
  EXPECT_EQ(result.stop, SearchStop::rounds_done);
  EXPECT_EQ(result.rounds_run, 3);
  EXPECT_EQ(result.stop_reason, "rounds done; round 2 lost to protocol errors (model request failed: HTTP 502)");
  ASSERT_NE(result.find("r2-i0-b0"), nullptr);  // the lost branches stay in the tree, with their reasons
  EXPECT_EQ(result.find("r2-i0-b0")->reason(), "no candidate: model request failed: HTTP 502");
}

TEST(RoundPatienceSearch, ABranchTheModelGotWrongIsARoundWithoutGain) {
  TestProject p;
  p.config.search.min_round_gain = 0.01;
  p.config.search.patience = 1;
  p.config.search.rounds = 3;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext&) { return std::vector<ProposedIdea>{idea("vectorize", "memory_access")}; },
      [](const BranchRequest& r) {
        if (r.id_prefix.rfind("r2", 0) == 0)
          return std::vector<Branch>{Branch{std::nullopt, "model request failed: HTTP 502", true},
                                     Branch{std::nullopt, "the reply's code does not define the launcher"}};
        return std::vector<Branch>{Branch{timed_variant(50.0, r.id_prefix), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop, SearchStop::no_gain);
  EXPECT_EQ(result.rounds_run, 2);
}
