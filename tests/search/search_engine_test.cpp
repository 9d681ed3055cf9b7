// The engine against a simulated evaluator: the tree it records, seeds and their diversity,
// budgets, stopping on no gain, failures as verdicts, repairs, parallel compiles and GPUs.
#include "search/engine/search_engine.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "search/engine/seed_selection.h"
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

// Each round: two ideas (families a, b); branch b of idea i in round r runs in `time(r, i, b)` us.
ScriptedProposer improving_proposer(std::function<double(int64_t, size_t, int64_t)> time) {
  return ScriptedProposer(
      [](const ProposalContext&) {
        return std::vector<ProposedIdea>{idea("vectorize", "memory_access"), idea("bigger blocks", "parallelism")};
      },
      [time](const BranchRequest& r) {
        std::vector<Branch> out;
        int64_t round = std::stoll(r.id_prefix.substr(1, r.id_prefix.find('-') - 1));
        size_t i = std::stoul(r.id_prefix.substr(r.id_prefix.find("-i") + 2));
        for (int64_t b = 0; b < r.branches; ++b)
          out.push_back(Branch{timed_variant(time(round, i, b), r.id_prefix + "-" + std::to_string(b)), ""});
        return out;
      });
}

}  // namespace

TEST(SearchEngine, RecordsEveryCandidateWithParentRoundIdeaAndVerdict) {
  TestProject p;
  SimulatedEvaluator e;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 100.0 / (r + 1) - 5.0 * i - b; });
  auto result = run_search(request_for(p, e, proposer));

  ASSERT_EQ(result.tree.front().id, "baseline");
  EXPECT_EQ(result.tree.front().verdict(), Verdict::not_faster);
  EXPECT_EQ(result.tree.size(), 1u + 3 * 2 * 2);  // 3 rounds x 2 ideas x 2 branches
  EXPECT_EQ(result.stop_reason, "rounds done");
  EXPECT_EQ(result.stop, SearchStop::rounds_done);
  EXPECT_EQ(result.rounds_run, 3);
  std::set<std::string> ids;
  for (const auto& c : result.tree) {
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id " << c.id;
    if (c.id == "baseline") continue;
    EXPECT_EQ(c.id.substr(0, 2), "r" + std::to_string(c.round));
    EXPECT_NE(result.find(c.parent_id), nullptr) << c.id << " has an unknown parent " << c.parent_id;
    EXPECT_FALSE(c.idea.text.empty());
    EXPECT_FALSE(c.variant_hash.empty());
    EXPECT_EQ(c.verdict(), Verdict::accepted);
    EXPECT_GT(c.median_us(), 0);
  }
  // Round 1 grows from the original, later rounds from seeds of earlier rounds.
  for (const auto& c : result.tree) {
    if (c.round == 1) {
      EXPECT_EQ(c.parent_id, "baseline");
    } else if (c.round > 1) {
      EXPECT_EQ(c.parent_id.substr(0, 2), "r" + std::to_string(c.round - 1)) << c.id;
    }
  }
  // The winner is the fastest: round 3, idea 1, branch 1 (100/4 - 5 - 1 = 19 us).
  EXPECT_EQ(result.best_id, "r3-i1-b1");
  EXPECT_NEAR(result.best()->speedup(), 100.0 / 19.0, 1e-9);
  auto path = result.path_to(result.best_id);
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(path[0]->id, "baseline");
  EXPECT_EQ(result.budget.candidates, 12);
  EXPECT_EQ(e.evaluations(), 1 + 12);
}

// The search's result is whole: asked for, the winner's counters come from one more untimed run
// inside the search (the PR shows them), which counts the winner alone: the original's are those of
// its measurement at the search's start. Not asked for, no extra run.
TEST(SearchEngine, CollectsTheWinnersCountersWhenAsked) {
  TestProject p;
  SimulatedEvaluator e;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 100.0 / (r + 1) - 5.0 * i - b; });
  auto request = request_for(p, e, proposer);
  request.collect_winner_metrics = true;
  auto result = run_search(request);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(e.evaluations(), 1 + 12 + 1);
  EXPECT_EQ(result.best()->eval.baseline_metrics.status, "ok");
  EXPECT_EQ(result.best()->eval.baseline_metrics.values, result.baseline_profile.baseline_metrics.values);
  EXPECT_EQ(e.counts_only_runs_of_the_original(), 0) << "the original's counters are not taken twice";
  EXPECT_DOUBLE_EQ(e.last_full_max_error(), request.config->search_max_error()) << "the search's own error target";
  EXPECT_EQ(result.best()->eval.candidate_metrics.status, "ok");
  EXPECT_NEAR(result.best()->eval.candidate_metrics.values.at("achieved_occupancy_pct"), 40 * 100.0 / 19.0, 1e-9);
  // The original the search measured is in the result, as read once from the spec's source.
  EXPECT_EQ(result.original_source(), result.tree.front().variant.source);
  EXPECT_FALSE(result.original_source().empty());
}

TEST(SearchEngine, SeedsAreTheFastestVerifiedWithAtMostSoManyPerFamily) {
  std::vector<CandidateRecord> tree(6);
  const char* families[] = {"original", "parallelism", "parallelism", "parallelism", "memory_access", "parallelism"};
  double speedups[] = {1.0, 4.0, 3.9, 3.8, 2.0, 5.0};
  for (size_t i = 0; i < tree.size(); ++i) {
    tree[i].id = "c" + std::to_string(i);
    tree[i].idea.family = families[i];
    tree[i].eval.speedup = speedups[i];
    tree[i].eval.verdict = Verdict::accepted;
    tree[i].variant_hash = "h" + std::to_string(i);
  }
  tree[5].eval.verdict = Verdict::wrong_result;  // fastest, but wrong: never a seed
  auto seeds = select_seeds(tree, 3, 2);
  ASSERT_EQ(seeds.size(), 3u);
  EXPECT_EQ(seeds[0]->id, "c1");
  EXPECT_EQ(seeds[1]->id, "c2");
  EXPECT_EQ(seeds[2]->id, "c4");  // c3 would be a third parallelism seed
  auto one_per_family = select_seeds(tree, 5, 1);
  ASSERT_EQ(one_per_family.size(), 3u);
  EXPECT_EQ(one_per_family[2]->id, "c0");
  tree[2].variant_hash = tree[1].variant_hash;  // the same variant twice takes one slot
  EXPECT_EQ(select_seeds(tree, 3, 3)[1]->id, "c3");
}

TEST(SearchEngine, LaterRoundsSeeDiverseSeedsAndTheHistory) {
  TestProject p;
  p.config.search.seeds_kept = 2;
  p.config.search.max_seeds_per_family = 1;
  SimulatedEvaluator e;
  // Family memory_access (idea 0) is always faster than parallelism (idea 1).
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 50.0 / r + 10.0 * i + b; });
  run_search(request_for(p, e, proposer));
  ASSERT_EQ(proposer.contexts.size(), 3u);
  const auto& ctx2 = proposer.contexts[1];
  EXPECT_EQ(ctx2.round, 2);
  EXPECT_EQ(ctx2.history.size(), 4u);
  ASSERT_EQ(ctx2.seeds.size(), 2u);
  EXPECT_EQ(ctx2.seeds[0].id, "r1-i0-b0");  // the fastest
  EXPECT_EQ(ctx2.seeds[1].id, "r1-i1-b0");  // the best of another family, not r1-i0-b1
  EXPECT_EQ(proposer.contexts[0].seeds.size(), 1u);
  EXPECT_EQ(proposer.contexts[0].seeds[0].id, "baseline");
  EXPECT_EQ(proposer.contexts[0].launcher_signature, "void launch_k(float* y, int n)");
  EXPECT_EQ(proposer.contexts[0].baseline_profile.baseline_metrics.status, "ok");
  // Ideas without a seed of their own go to the seeds in turn.
  std::set<std::string> parents;
  for (const auto& r : proposer.requests)
    if (r.id_prefix.rfind("r2", 0) == 0) parents.insert(r.seed.id);
  EXPECT_EQ(parents, (std::set<std::string>{"r1-i0-b0", "r1-i1-b0"}));
}

TEST(SearchEngine, AnIdeaMayNameItsSeed) {
  TestProject p;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext& ctx) {
        if (ctx.round == 1) return std::vector<ProposedIdea>{idea("a", "memory_access"), idea("b", "parallelism")};
        return std::vector<ProposedIdea>{idea("c", "fusion", "r1-i1-b1")};
      },
      [](const BranchRequest& r) {
        return std::vector<Branch>{Branch{timed_variant(90 - r.branches, r.id_prefix + "x"), ""},
                                   Branch{timed_variant(80, r.id_prefix + "y"), ""}};
      });
  p.config.search.rounds = 2;
  auto result = run_search(request_for(p, e, proposer));
  ASSERT_NE(result.find("r2-i0-b0"), nullptr);
  EXPECT_EQ(result.find("r2-i0-b0")->parent_id, "r1-i1-b1");
}

TEST(SearchEngine, StopsAtTheCandidateBudget) {
  TestProject p;
  p.config.search.max_candidates = 5;
  SimulatedEvaluator e;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.budget.candidates, 5);
  EXPECT_EQ(e.compiles(), 1 + 5);
  EXPECT_EQ(result.tree.size(), 1u + 5);
  EXPECT_EQ(result.stop_reason, "budget: candidates (5)");
  EXPECT_EQ(result.stop, SearchStop::budget);
}

TEST(SearchEngine, StopsAtTheWallTimeBudget) {
  TestProject p;
  p.config.search.max_wall_time_s = 0.25;
  p.config.search.rounds = 50;
  SimulatedEvaluator e;
  e.evaluate_delay_s = 0.05;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
  auto t0 = std::chrono::steady_clock::now();
  auto result = run_search(request_for(p, e, proposer));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(result.stop_reason.rfind("budget: wall time", 0), 0u) << result.stop_reason;
  EXPECT_EQ(result.stop, SearchStop::budget);
  EXPECT_LT(result.budget.candidates, 50 * 4);
  EXPECT_LT(elapsed, 2.0);
}

namespace {

// A clock the simulated evaluator advances by each evaluation's run time: a kernel whose
// evaluations take tens of seconds, searched in no time.
struct SimulatedClock {
  std::mutex mutex;
  double now = 0;
  void spend(double s) {
    std::lock_guard lock(mutex);
    now += s;
  }
  double read() {
    std::lock_guard lock(mutex);
    return now;
  }
};

void run_on(SimulatedClock& clock, SimulatedEvaluator& e, SearchRequest& request) {
  e.spend = [&clock](double s) { clock.spend(s); };
  request.clock = [&clock] { return clock.read(); };
}

// A search that only its 150 s wall-time budget ends: rounds without end, no patience.
void bound_by_budget(TestProject& p, bool screening) {
  p.config.search.max_wall_time_s = 150;
  p.config.search.rounds = 50;
  p.config.search.patience = 0;
  p.config.search.screening = screening;
}

}  // namespace

// The production case: a slow kernel whose candidates take 20 s each, a 150 s budget. The search
// starts no candidate it cannot finish, ends within the budget (10% allowed) and keeps its best.
TEST(SearchEngine, HoldsTheWallTimeBudgetWhenEveryCandidateIsSlow) {
  for (const bool screening : {true, false}) {
    SCOPED_TRACE(screening ? "screening" : "no screening");
    TestProject p;
    bound_by_budget(p, screening);
    SimulatedEvaluator e;
    e.full_run_s = 20;
    e.screen_run_s = 4;
    SimulatedClock clock;
    auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
    auto request = request_for(p, e, proposer);
    request.collect_winner_metrics = true;  // the winner's counters count too
    run_on(clock, e, request);
    auto result = run_search(request);
    EXPECT_EQ(result.stop, SearchStop::budget) << result.stop_reason;
    EXPECT_EQ(result.stop_reason.rfind("budget: wall time (150 s)", 0), 0u) << result.stop_reason;
    EXPECT_LE(result.budget.wall_time_s, 150 * 1.1);
    EXPECT_LE(clock.read(), 150 * 1.1);
    EXPECT_GE(result.budget.wall_time_s, 100);  // and it used the budget, not stopped early
    ASSERT_FALSE(result.best_id.empty());
    EXPECT_EQ(result.best()->verdict(), Verdict::accepted);
    EXPECT_GT(result.best()->speedup(), 1.0);
    // Every candidate in the tree got its verdict: none was cut short or left pending.
    for (const auto& c : result.tree) EXPECT_NE(c.verdict(), Verdict::pending) << c.id;
  }
}

// A candidate that waited for the GPU (the previous kernel's re-verification had it) is not a
// costly candidate: its wait is wall time spent, but the budget does not expect the next
// candidate to wait as long, and the search goes on while a candidate's own time is left.
TEST(SearchEngine, ACandidatesWaitForTheGpuIsNotCountedAsWhatTheNextOneCosts) {
  TestProject p;
  bound_by_budget(p, false);
  SimulatedEvaluator e;
  e.full_run_s = 20;
  e.first_full_wait_s = 60;  // the original 20 s, the first candidate 20 s after 60 s of waiting
  SimulatedClock clock;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
  auto request = request_for(p, e, proposer);
  run_on(clock, e, request);
  auto result = run_search(request);
  EXPECT_EQ(result.stop, SearchStop::budget) << result.stop_reason;
  // 100 s spent after the first candidate; taken as an 80 s candidate, nothing more would start.
  EXPECT_GE(e.full_evaluations(), 1 + 3) << result.stop_reason;
  EXPECT_GE(clock.read(), 140);
  EXPECT_LE(clock.read(), 150 * 1.1);
}

// An original whose measurement leaves less than one candidate's time: no candidate is
// evaluated, and the search ends cleanly with nothing faster.
TEST(SearchEngine, NoCandidateStartsWhenTheOriginalLeavesTooLittleTime) {
  TestProject p;
  p.config.search.max_wall_time_s = 50;
  SimulatedEvaluator e;
  e.full_run_s = 25;  // the original measured in 25 s; a candidate is expected to take ~30 s
  SimulatedClock clock;
  auto proposer = improving_proposer([](int64_t, size_t i, int64_t b) { return 50.0 - i - b; });
  auto request = request_for(p, e, proposer);
  run_on(clock, e, request);
  auto result = run_search(request);
  EXPECT_EQ(result.stop, SearchStop::budget);
  EXPECT_NE(result.stop_reason.find("less than"), std::string::npos) << result.stop_reason;
  EXPECT_EQ(e.evaluations(), 1);  // the original's measurement only
  EXPECT_LE(clock.read(), 50);
  EXPECT_TRUE(result.best_id.empty());
  for (const auto& c : result.tree) EXPECT_NE(c.verdict(), Verdict::pending) << c.id;
}

TEST(SearchEngine, StopsAtTheTokenBudget) {
  TestProject p;
  p.config.search.max_tokens = 2500;
  p.config.search.rounds = 10;
  SimulatedEvaluator e;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
  proposer.tokens_per_round = 1000;
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop_reason, "budget: tokens (2500)");
  EXPECT_EQ(result.stop, SearchStop::budget);
  EXPECT_EQ(proposer.contexts.size(), 3u);  // 1000, 2000, then 3000 >= 2500 stops before round 4
  EXPECT_EQ(result.budget.prompt_tokens, 3000);
}

TEST(SearchEngine, StopsWhenARoundBringsTooLittle) {
  TestProject p;
  p.config.search.min_round_gain = 0.05;
  p.config.search.patience = 1;  // round_patience_test.cpp: the default waits for a second such round
  p.config.search.rounds = 5;
  SimulatedEvaluator e;
  // Round 1: 50 us (2x). Round 2: 49 us, a 2% gain, under the 5% asked for.
  auto proposer = improving_proposer([](int64_t r, size_t, int64_t) { return r == 1 ? 50.0 : 49.0; });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop_reason.rfind("no gain in round 2", 0), 0u) << result.stop_reason;
  EXPECT_EQ(result.stop, SearchStop::no_gain);
  EXPECT_EQ(proposer.contexts.size(), 2u);
}

TEST(SearchEngine, FailuresAreVerdictsAndACompileErrorGetsOneRepair) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 4;
  SimulatedEvaluator e;
  ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{idea("x", "fusion")}; },
                            [](const BranchRequest&) {
                              return std::vector<Branch>{Branch{timed_variant(50, "wrong", "SIM_WRONG"), ""},
                                                         Branch{timed_variant(50, "crash", "SIM_CRASH"), ""},
                                                         Branch{timed_variant(50, "broken", "SIM_COMPILE_ERROR"), ""},
                                                         Branch{std::nullopt,
                                                                "the reply was cut off at the token limit"}};
                            });
  proposer.repair_fn = [](const Variant&, const std::string& log) -> std::optional<Variant> {
    EXPECT_NE(log.find("undefined"), std::string::npos);
    return timed_variant(40, "repaired");
  };
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.find("r1-i0-b0")->verdict(), Verdict::wrong_result);
  EXPECT_EQ(result.find("r1-i0-b1")->verdict(), Verdict::crashed);
  const auto* broken = result.find("r1-i0-b2");
  EXPECT_EQ(broken->verdict(), Verdict::compile_error);
  EXPECT_NE(broken->reason().find("does not compile"), std::string::npos);
  EXPECT_NE(broken->eval.compile_log.find("undefined"), std::string::npos);
  const auto* fixed = result.find("r1-i0-b2-fix1");
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->parent_id, "r1-i0-b2");
  EXPECT_EQ(fixed->verdict(), Verdict::accepted);
  EXPECT_EQ(result.best_id, "r1-i0-b2-fix1");
  const auto* rejected = result.find("r1-i0-b3");
  ASSERT_NE(rejected, nullptr);
  EXPECT_EQ(rejected->verdict(), Verdict::rejected);
  EXPECT_NE(rejected->reason().find("token limit"), std::string::npos);
  EXPECT_EQ(proposer.repairs, std::vector<std::string>{"r1-i0-b2"});
  EXPECT_EQ(result.budget.candidates, 4);  // three compiled branches and the repair; the empty branch is free
}

// A candidate refused before nvcc ran (the source policy, a compile limit) is a compile error
// whose reason is the refusal's own, and its log goes to the repair like nvcc's would.
TEST(SearchEngine, ARefusedCandidateIsACompileErrorWithTheRefusalAsItsReason) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
  SimulatedEvaluator e;
  ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{idea("x", "fusion")}; },
                            [](const BranchRequest&) {
                              return std::vector<Branch>{Branch{timed_variant(50, "b", "SIM_REFUSED"), ""}};
                            });
  std::string repair_log;
  proposer.repair_fn = [&](const Variant&, const std::string& log) -> std::optional<Variant> {
    repair_log = log;
    return timed_variant(40, "rewritten");
  };
  auto result = run_search(request_for(p, e, proposer));
  const auto* refused = result.find("r1-i0-b0");
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->verdict(), Verdict::compile_error);
  EXPECT_EQ(refused->reason(),
            "refused by the candidate source policy before compiling: line 2: `getenv` (environment)");
  EXPECT_NE(repair_log.find("candidate source policy"), std::string::npos) << repair_log;
  EXPECT_EQ(result.find("r1-i0-b0-fix1")->verdict(), Verdict::accepted);
}

TEST(SearchEngine, ARepairThatStillFailsIsNotRepairedAgain) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
  SimulatedEvaluator e;
  ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{idea("x", "fusion")}; },
                            [](const BranchRequest&) {
                              return std::vector<Branch>{Branch{timed_variant(50, "b", "SIM_COMPILE_ERROR"), ""}};
                            });
  proposer.repair_fn = [](const Variant& v, const std::string&) -> std::optional<Variant> {
    return timed_variant(50, v.label + "again", "SIM_COMPILE_ERROR");
  };
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(proposer.repairs.size(), 1u);
  EXPECT_EQ(result.find("r1-i0-b0-fix1")->verdict(), Verdict::compile_error);
  EXPECT_TRUE(result.best_id.empty());
}

TEST(SearchEngine, CompilesInParallelAndUsesEveryGpu) {
  TestProject p;
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 4;
  p.config.search.branches_per_idea = 3;
  p.config.search.compile_jobs = 4;
  SimulatedEvaluator gpu0(kb::testing::markers_cost, 0), gpu1(kb::testing::markers_cost, 1);
  gpu0.compile_delay_s = 0.05;
  gpu0.evaluate_delay_s = 0.03;
  gpu1.evaluate_delay_s = 0.03;
  ScriptedProposer proposer(
      [](const ProposalContext&) {
        return std::vector<ProposedIdea>{idea("a", "fusion"), idea("b", "fusion"), idea("c", "fusion"),
                                         idea("d", "fusion")};
      },
      [](const BranchRequest& r) {
        std::vector<Branch> out;
        for (int b = 0; b < 3; ++b) out.push_back(Branch{timed_variant(60 + b, r.id_prefix + std::to_string(b)), ""});
        return out;
      });
  auto req = request_for(p, gpu0, proposer);
  req.more_evaluators = {&gpu1};
  std::vector<SearchProgress> progress;
  req.on_progress = [&](const SearchProgress& s) { progress.push_back(s); };
  auto t0 = std::chrono::steady_clock::now();
  auto result = run_search(req);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(gpu0.max_concurrent_compiles(), 2);
  EXPECT_GT(gpu1.evaluations(), 0);
  EXPECT_GT(gpu0.evaluations(), 1);
  std::set<int64_t> devices;
  for (const auto& c : result.tree)
    if (c.id != "baseline") {
      devices.insert(c.device_index);
      EXPECT_EQ(c.verdict(), Verdict::accepted) << c.id << ": " << c.reason();
    }
  EXPECT_EQ(devices, (std::set<int64_t>{0, 1}));
  // 12 compiles of 50 ms on 4 threads and 12 evaluations of 30 ms on 2 GPUs: well under the 1.0 s serial time.
  EXPECT_LT(elapsed, 0.8);
  ASSERT_EQ(progress.size(), 12u);
  EXPECT_EQ(progress.back().candidates_done, 12);
  EXPECT_NEAR(progress.back().best_speedup, 100.0 / 60.0, 1e-9);
  // Results come back in candidate order whatever order they finished in.
  EXPECT_EQ(result.tree[1].id, "r1-i0-b0");
  EXPECT_EQ(result.tree.back().id, "r1-i3-b2");
}

TEST(SearchEngine, SkipsAVariantAlreadyEvaluatedInThisSearch) {
  TestProject p;
  p.config.search.rounds = 2;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext&) { return std::vector<ProposedIdea>{idea("same", "fusion")}; },
      [](const BranchRequest& r) {
        return std::vector<Branch>{Branch{timed_variant(50, "same"), ""}, Branch{timed_variant(40, r.id_prefix), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_NE(result.find("r1-i0-b0"), nullptr);
  EXPECT_EQ(result.find("r2-i0-b0"), nullptr);  // the same code again: not compiled twice
  EXPECT_NE(result.find("r2-i0-b1"), nullptr);
  EXPECT_EQ(result.budget.candidates, 3);
}

TEST(SearchEngine, OffersACrossoverOfTwoSeedsFromRoundTwo) {
  TestProject p;
  p.config.search.rounds = 2;
  SimulatedEvaluator e;
  auto proposer = improving_proposer([](int64_t r, size_t i, int64_t b) { return 90.0 / r - i - b; });
  proposer.crossover = true;
  auto result = run_search(request_for(p, e, proposer));
  const BranchRequest* crossover = nullptr;
  for (const auto& r : proposer.requests)
    if (r.mate) crossover = &r;
  ASSERT_NE(crossover, nullptr);
  EXPECT_EQ(crossover->idea.idea.family, "crossover");
  EXPECT_EQ(crossover->id_prefix, "r2-i2");
  EXPECT_NE(crossover->seed.id, crossover->mate->id);
  EXPECT_NE(crossover->seed.idea.family, crossover->mate->idea.family);
  EXPECT_NE(result.find("r2-i2-b0"), nullptr);
}

TEST(SearchEngine, StopsWhenTheProposerHasNothingLeft) {
  TestProject p;
  SimulatedEvaluator e;
  ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{}; },
                            [](const BranchRequest&) { return std::vector<Branch>{}; });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop_reason, "no more ideas");
  EXPECT_EQ(result.stop, SearchStop::proposer_exhausted);
  EXPECT_EQ(result.tree.size(), 1u);
  EXPECT_TRUE(result.best_id.empty());
}

TEST(SearchEngine, AProposerErrorEndsTheSearchWithoutLosingTheTree) {
  TestProject p;
  SimulatedEvaluator e;
  ScriptedProposer proposer(
      [](const ProposalContext& ctx) -> std::vector<ProposedIdea> {
        if (ctx.round == 2) throw std::runtime_error("HTTP 401: invalid API key");
        return {idea("a", "fusion")};
      },
      [](const BranchRequest& r) {
        return std::vector<Branch>{Branch{timed_variant(50, r.id_prefix), ""}};
      });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop_reason, "proposer failed: HTTP 401: invalid API key");
  EXPECT_EQ(result.stop, SearchStop::proposer_failed);
  EXPECT_EQ(result.best_id, "r1-i0-b0");
}

TEST(SearchEngine, ThrowsWhenTheOriginalDoesNotCompileOrRun) {
  {
    TestProject p("// SIM_COMPILE_ERROR\nvoid launch_k(float* y, int n) {}\n");
    SimulatedEvaluator e;
    ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{}; },
                              [](const BranchRequest&) { return std::vector<Branch>{}; });
    try {
      run_search(request_for(p, e, proposer));
      FAIL() << "expected an error";
    } catch (const OriginalDoesNotCompile& ex) {
      EXPECT_NE(std::string(ex.what()).find("does not compile"), std::string::npos) << ex.what();
      EXPECT_NE(std::string(ex.what()).find("undefined_thing"), std::string::npos) << ex.what();
      EXPECT_NE(ex.log.find("undefined_thing"), std::string::npos) << ex.log;  // whole, for the hints
    }
  }
  {
    TestProject p("// SIM_CRASH\nvoid launch_k(float* y, int n) {}\n");
    SimulatedEvaluator e;
    ScriptedProposer proposer([](const ProposalContext&) { return std::vector<ProposedIdea>{}; },
                              [](const BranchRequest&) { return std::vector<Branch>{}; });
    EXPECT_THROW(run_search(request_for(p, e, proposer)), std::runtime_error);
  }
}

TEST(SearchEngine, AFailingEvaluatorEndsTheSearch) {
  TestProject p;
  struct BrokenAfterBaseline : SimulatedEvaluator {
    int calls = 0;
    EvalResult evaluate(const config::KernelSpec& s, const CompiledVariant& b, const CompiledVariant& c,
                        const EvalOptions& o) override {
      if (++calls > 1) throw std::runtime_error("kernelbot-harness not found");
      return SimulatedEvaluator::evaluate(s, b, c, o);
    }
  } e;
  auto proposer = improving_proposer([](int64_t, size_t, int64_t) { return 50.0; });
  auto result = run_search(request_for(p, e, proposer));
  EXPECT_EQ(result.stop_reason.rfind("evaluator failing: the evaluator failed: kernelbot-harness not found", 0), 0u)
      << result.stop_reason;
  EXPECT_EQ(result.stop, SearchStop::evaluator_failing);
  EXPECT_EQ(result.find("r1-i0-b0")->verdict(), Verdict::infra_error);
}
