// A round's pipeline on a simulated GPU: the GPUs start on the first idea's branches while later
// ideas are still being implemented (a model's replies take seconds each), yet ids, the tree's
// order and which of two identical variants is evaluated do not depend on the order the replies
// came in; and the search's own time (the original, proposing, GPUs waiting) is accounted for.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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

namespace {

size_t idea_index(const BranchRequest& r) { return std::stoul(r.id_prefix.substr(r.id_prefix.find("-i") + 2)); }

// Waits up to `limit_s` for `done`; true when it came.
template <typename F>
bool wait_for(F done, double limit_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace

TEST(RoundPipeline, TheGpuMeasuresTheFirstIdeaWhileTheNextIsStillBeingWritten) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.screening = false;
  SimulatedEvaluator e;
  std::atomic<bool> overlapped{false};
  ScriptedProposer proposer(
      [](const ProposalContext&) {
        return std::vector<ProposedIdea>{idea("vectorize", "memory_access"), idea("unroll", "parallelism")};
      },
      [&](const BranchRequest& r) {
        // Idea 1's reply is slow, and comes only after idea 0's candidate is being measured
        // (or after 10 s, when the engine waits for every reply before measuring anything).
        if (idea_index(r) == 1) overlapped = wait_for([&] { return e.evaluations() >= 2; }, 10.0);
        return std::vector<Branch>{Branch{timed_variant(50.0 - static_cast<double>(idea_index(r)), r.id_prefix), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_TRUE(overlapped) << "no candidate was measured before the round's last reply came";
  ASSERT_NE(result.find("r1-i0-b0"), nullptr);
  ASSERT_NE(result.find("r1-i1-b0"), nullptr);
  EXPECT_EQ(result.find("r1-i1-b0")->verdict(), Verdict::accepted);
  EXPECT_EQ(result.best_id, "r1-i1-b0");
}

TEST(RoundPipeline, IdsOrderAndDeduplicationFollowTheIdeasNotTheReplies) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.branches_per_idea = 2;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext&) {
        return std::vector<ProposedIdea>{idea("a", "memory_access"), idea("b", "parallelism"), idea("c", "fusion")};
      },
      [](const BranchRequest& r) {
        // Replies come in reverse order: idea 2 first, idea 0 last. Ideas 0 and 2 both write
        // the same variant as their first branch.
        const size_t i = idea_index(r);
        std::this_thread::sleep_for(std::chrono::milliseconds(100 * (2 - static_cast<int>(i))));
        return std::vector<Branch>{Branch{timed_variant(40, i == 1 ? "b-first" : "shared"), ""},
                                   Branch{timed_variant(45, r.id_prefix + "-second"), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  std::vector<std::string> ids;
  for (const auto& c : result.tree) ids.push_back(c.id);
  // r1-i2-b0 is the same code as r1-i0-b0: idea 0 comes first, whichever reply came first.
  EXPECT_EQ(ids, (std::vector<std::string>{"baseline", "r1-i0-b0", "r1-i0-b1", "r1-i1-b0", "r1-i1-b1", "r1-i2-b1"}));
  EXPECT_EQ(result.budget.candidates, 5);
}

TEST(RoundPipeline, TheSearchsOwnTimeIsAccountedFor) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.screening = false;
  SimulatedEvaluator e;
  e.evaluate_delay_s = 0.05;
  ScriptedProposer proposer(
      [](const ProposalContext&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        return std::vector<ProposedIdea>{idea("a", "memory_access"), idea("b", "parallelism")};
      },
      [](const BranchRequest& r) {
        // Idea 0 has no code; idea 1's reply takes 0.3 s: the one GPU has nothing to do meanwhile.
        if (idea_index(r) == 0) return std::vector<Branch>{Branch{std::nullopt, "the reply had no code"}};
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        return std::vector<Branch>{Branch{timed_variant(50, r.id_prefix), ""}};
      });
  auto req = request_for(p, e, proposer);
  req.collect_winner_metrics = true;
  auto result = run_search(req);
  const SearchPhases& ph = result.phases;
  EXPECT_GE(ph.original_s, 0.05) << "the original's evaluation alone takes evaluate_delay_s";
  EXPECT_GE(ph.proposing_s, 0.15);
  EXPECT_GE(ph.gpu_wait_s, 0.25) << "the GPU waited for idea 1's reply";
  EXPECT_LT(ph.gpu_wait_s, 5.0);
  EXPECT_GE(ph.winner_metrics_s, 0.05) << "the winner's counters are one more evaluation";
  // The JSON of a result keeps them.
  nlohmann::json j = ph;
  EXPECT_DOUBLE_EQ(j["gpu_wait_s"].get<double>(), ph.gpu_wait_s);
  EXPECT_DOUBLE_EQ(j["original_s"].get<double>(), ph.original_s);
}
