// Small pieces of the search: content hashes, variant changes, prompts, idea families, budgets.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "search/archive/content_hash.h"
#include "search/engine/candidate_cost.h"
#include "search/engine/search_budget.h"
#include "search/ideas/idea_family.h"
#include "search/ideas/variant_change.h"
#include "search/llm/exchange_keys.h"
#include "search/llm/llm_prompts.h"
#include "search/types/search_tree.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;

TEST(ContentHash, VariantHashIgnoresDefineOrderButNotFlagsOrSource) {
  Variant a{"src", {"A=1", "B=2"}, {"-O3", "--use_fast_math"}, "a"};
  Variant b{"src", {"B=2", "A=1"}, {"-O3", "--use_fast_math"}, "another label"};
  EXPECT_EQ(variant_hash(a), variant_hash(b));
  b.nvcc_flags = {"--use_fast_math", "-O3"};
  EXPECT_NE(variant_hash(a), variant_hash(b));
  b = a;
  b.source += " ";
  EXPECT_NE(variant_hash(a), variant_hash(b));
}

TEST(VariantChange, DescribesDefinesAndFlagsOfAVariant) {
  Variant v{"same\n", {"SAXPY_BLOCK=256"}, {"--use_fast_math"}, ""};
  EXPECT_EQ(describe_variant_change("same\n", v, "saxpy.cu"),
            "# defines: -DSAXPY_BLOCK=256\n# nvcc flags: --use_fast_math\n");
}

TEST(PromptBuilder, EveryStepsPromptIsCompleteAndCarriesTheFacts) {
  kb::testing::TestProject p;
  ProposalContext ctx;
  ctx.config = &p.config;
  ctx.spec = &p.spec();
  ctx.original_source = "// the original\nvoid launch_k(float* y, int n) {}\n";
  ctx.launcher_signature = "void launch_k(float* y, int n)";
  ctx.device.name = "NVIDIA H100 80GB HBM3";
  ctx.device.sm_count = 132;
  ctx.device.copy_bandwidth_gbps = 3000;
  SizeTiming t;
  t.size_label = "n=1048576";
  t.baseline.median_us = 40;
  t.floor_us = 10;
  t.baseline_pct_of_floor = 25;
  ctx.baseline_profile.timings.push_back(t);
  SizeTiming gather = t;  // a size where the spec's byte estimate is far above what moves
  gather.size_label = "n=4096";
  gather.baseline.median_us = 4;
  gather.baseline_pct_of_floor = 250;
  ctx.baseline_profile.timings.push_back(gather);
  ctx.baseline_profile.baseline_metrics.status = "ok";
  ctx.baseline_profile.baseline_metrics.values["dram_throughput_pct"] = 21.5;
  ctx.history.push_back(Outcome{
      "r1-i0-b0", "baseline", 1, {"use float4", "memory_access", ""}, {}, Verdict::wrong_result, "output y differs", 0});
  Seed base{"baseline", {"the original code", "original", ""}, Variant{ctx.original_source, {}, {}, ""}, 1.0, {}};
  Seed good{"r1-i1-b0", {"bigger blocks", "parallelism", ""}, Variant{"// good\n", {"K_BLOCK=256"}, {}, ""}, 3.5, {}};
  ctx.seeds = {good, base};
  ctx.examples.push_back(ArchiveExample{
      "transpose", "NVIDIA H100", {"tile in shared memory", "memory_access", ""}, 4.2, "--- a/t.cu\n+++ b/t.cu\n"});
  ctx.round = 2;
  config::LlmConfig llm;
  PromptBuilder prompts(ctx, llm);

  auto ideas = prompts.ideas(5);
  EXPECT_EQ(ideas.step, "ideas");
  EXPECT_EQ(ideas.key, "r2");
  ASSERT_EQ(ideas.messages.size(), 2u);
  const std::string& user = ideas.messages[1].content;
  for (const char* fact : {"round 2 of 5",
                           "NVIDIA H100 80GB HBM3",
                           "132 SMs",
                           "3000 GB/s",
                           "25% of the floor",
                           "dram_throughput_pct",
                           "use float4",
                           "wrong_result",
                           "output y differs",
                           "r1-i1-b0 (3.50x",
                           "-DK_BLOCK=256",
                           "// good",
                           "transpose",
                           "tile in shared memory",
                           "4.20x",
                           "JSON array",
                           "// the original",
                           "rtol",
                           "memory_access",
                           "at 250% of the floor (above it: the floor's byte count is an estimate"})
    EXPECT_NE(user.find(fact), std::string::npos) << fact;
  EXPECT_NE(ideas.messages[0].content.find("void launch_k(float* y, int n)"), std::string::npos);

  BranchRequest br;
  br.idea.idea = {"vectorize with float4", "memory_access", "16-byte loads"};
  br.seed = good;
  br.id_prefix = "r2-i0";
  br.branches = 3;
  auto impl = prompts.implement(br, 1);
  EXPECT_EQ(impl.step, "implement");
  EXPECT_EQ(impl.key, "r2-i0-b1");
  EXPECT_NE(impl.messages[1].content.find("variant 2 of 3"), std::string::npos);
  EXPECT_NE(impl.messages[1].content.find("vectorize with float4 (family: memory_access)"), std::string::npos);
  br.mate = base;
  br.id_prefix = "r2-i1";  // after the tuner's idea; the key does not say where the crossover is
  auto cross = prompts.implement(br, 0);
  EXPECT_EQ(cross.step, "crossover");
  EXPECT_EQ(cross.key, "r2-crossover-b0");
  EXPECT_EQ(cross.summary["candidate"], "r2-i1-b0");
  EXPECT_NE(cross.messages[1].content.find("Parent B: baseline"), std::string::npos);
  auto fix = prompts.repair("r2-i1-b1", "r2-crossover-b1", br.idea.idea, good.variant,
                            "k.cu(3): error: expected a \";\"");
  EXPECT_EQ(fix.step, "repair");
  EXPECT_EQ(fix.key, "r2-crossover-b1");
  EXPECT_EQ(fix.summary["candidate"], "r2-i1-b1");
  EXPECT_NE(fix.messages[1].content.find("expected a \";\""), std::string::npos);
  EXPECT_LE(fix.temperature, 0.2);
}

// A launcher with a trailing cudaStream_t (issue #12): the signature the model is shown says so,
// the prompt tells it where the work goes, and an index range is part of what the archive keys on.
TEST(PromptBuilder, AStreamArgumentIsInTheSignatureAndThePromptRangesInTheSpecHash) {
  kb::testing::TestProject p;
  config::KernelSpec spec = p.spec();
  EXPECT_EQ(format_launch_stream(spec), "the default stream");
  const std::string before = spec_hash(p.config, spec);
  config::ArgSpec stream;
  stream.name = "stream";
  stream.role = ArgRole::stream;
  spec.args.push_back(stream);
  EXPECT_NE(launcher_signature(spec, "").find(", cudaStream_t stream)"), std::string::npos)
      << launcher_signature(spec, "");
  EXPECT_EQ(format_launch_stream(spec),
            "the stream it is given in `stream` (every kernel, copy and memset goes there)");
  const std::string with_stream = spec_hash(p.config, spec);
  EXPECT_NE(with_stream, before);
  config::ArgSpec ids;
  ids.name = "ids";
  ids.role = ArgRole::input;
  ids.dtype = DType::int32;
  ids.count = "n";
  spec.args.push_back(ids);
  const std::string without_range = spec_hash(p.config, spec);
  spec.args.back().range = {"0", "n"};
  EXPECT_NE(spec_hash(p.config, spec), without_range) << "a range changes the inputs every verdict rests on";
}

TEST(ExchangeKeys, NameWhatTheModelWasAskedNotWhereTheEngineNumberedIt) {
  EXPECT_EQ(ideas_key(3), "r3");
  BranchRequest model_idea;
  model_idea.idea.key = model_idea_tag(1);  // the second idea of the model's reply
  model_idea.id_prefix = "r2-i1";
  EXPECT_EQ(branch_key(branch_key_prefix(2, model_idea), 2), "r2-i1-b2");
  BranchRequest crossover;
  crossover.mate = Seed{};
  for (const char* id_prefix : {"r2-i0", "r2-i3"}) {  // with or without the tuner's idea before it
    crossover.id_prefix = id_prefix;
    EXPECT_EQ(branch_key(branch_key_prefix(2, crossover), 0), "r2-crossover-b0");
  }
  BranchRequest other;  // an idea the model did not write is named after its candidates
  other.idea.key = "tune:r1-i0-b0";
  other.id_prefix = "r2-i4";
  EXPECT_EQ(branch_key_prefix(2, other), "r2-i4");
  EXPECT_EQ(model_idea_index(model_idea_tag(12)), 12u);
  EXPECT_EQ(model_idea_index("llm:"), std::nullopt);
  EXPECT_EQ(model_idea_index("tune:llm:1"), std::nullopt);

  RepairKeys repairs;
  repairs.remember("r2-i0", "r2-crossover");
  repairs.remember("r1-i1", "r1-i1");
  EXPECT_EQ(repairs.key_for("r2-i0-b1"), "r2-crossover-b1");
  EXPECT_EQ(repairs.key_for("r2-i0-b1-fix1"), "r2-crossover-b1-fix1");  // the repair of a repair
  EXPECT_EQ(repairs.key_for("r1-i1-b0"), "r1-i1-b0");
  EXPECT_EQ(repairs.key_for("r3-i0-b0"), "r3-i0-b0");  // not remembered: its own id
}

TEST(IdeaFamily, NormalizesFreeFormLabels) {
  EXPECT_EQ(normalize_family("Memory Access"), "memory_access");
  EXPECT_EQ(normalize_family("async-latency"), "async_latency");
  EXPECT_EQ(normalize_family("vectorization"), "memory_access");
  EXPECT_EQ(normalize_family("occupancy tuning"), "parallelism");
  EXPECT_EQ(normalize_family("kernel fusion"), "fusion");
  EXPECT_EQ(normalize_family("mixed precision (fp16)"), "precision");
  EXPECT_EQ(normalize_family("astrology"), "other");
}

TEST(SearchBudget, ReservesCandidatesAndReportsTheFirstSpentBudget) {
  config::SearchConfig c;
  c.max_candidates = 2;
  c.max_tokens = 100;
  c.max_cost_usd = 1;
  SearchBudget budget(c);
  EXPECT_EQ(budget.exhausted({}), "");
  EXPECT_EQ(budget.exhausted(TokenUsage{60, 40, 0, 1}), "budget: tokens (100)");
  EXPECT_EQ(budget.exhausted(TokenUsage{1, 1, 1.5, 1}), "budget: cost ($1.00)");
  EXPECT_TRUE(budget.reserve_candidate());
  EXPECT_TRUE(budget.reserve_candidate());
  EXPECT_FALSE(budget.reserve_candidate());
  EXPECT_EQ(budget.candidates_left(), 0);
  EXPECT_EQ(budget.exhausted({}), "budget: candidates (2)");
  c.max_tokens = 0;  // no limit
  c.max_cost_usd = 0;
  SearchBudget unlimited(c);
  EXPECT_EQ(unlimited.exhausted(TokenUsage{1'000'000'000, 0, 1e6, 1}), "");
}

TEST(SearchBudget, KeepsRoomForTheNextCandidateOnItsClock) {
  config::SearchConfig c;
  c.max_wall_time_s = 100;
  double now = 1000;
  SearchBudget budget(c, [&now] { return now; });
  now += 70;
  EXPECT_DOUBLE_EQ(budget.elapsed_s(), 70);
  EXPECT_TRUE(budget.time_for(30));
  EXPECT_FALSE(budget.time_for(31));
  EXPECT_EQ(budget.exhausted({}, 20), "");
  EXPECT_EQ(budget.exhausted({}, 40), "budget: wall time (100 s): 30 s left, less than one candidate takes (~40 s)");
  EXPECT_TRUE(budget.reserve_candidate());
  now += 30;
  EXPECT_FALSE(budget.reserve_candidate());
  EXPECT_EQ(budget.exhausted({}), "budget: wall time (100 s)");
}

TEST(SearchBudget, RefusesABudgetOfNothing) {
  config::SearchConfig c;
  c.max_wall_time_s = 0;
  EXPECT_THROW(SearchBudget{c}, kb::UsageError);
  c.max_wall_time_s = 10;
  c.max_candidates = 0;
  EXPECT_THROW(SearchBudget{c}, kb::UsageError);
}

TEST(CandidateCost, GuessesFromTheOriginalThenTakesTheLongestSeen) {
  EvalResult original;  // a 250 ms kernel at one size set, timed alone in 3 s after a 1 s start
  SizeTiming t;
  t.baseline.median_us = 250'000;
  original.timings.push_back(t);
  original.phase_s = {{"start", 1.0}, {"timing", 3.0}, {"metrics", 2.0}};
  // Both variants timed (6 s), 5 trials and 6 pass calls of each (5.5 s), the contract passes'
  // 31 calls of each (15.5 s), a start (1 s).
  EXPECT_DOUBLE_EQ(first_full_evaluation_guess(original, 5), 28);
  EXPECT_DOUBLE_EQ(winner_counters_guess(original), 4 + 1) << "no counters of the original: both counted, and a start";
  original.baseline_metrics.status = "ok";
  EXPECT_DOUBLE_EQ(winner_counters_guess(original), 2 + 1) << "the winner alone, and a start";
  CandidateCost cost(12.5);
  EXPECT_DOUBLE_EQ(cost.full_s(), 12.5);
  EXPECT_DOUBLE_EQ(cost.screening_s(), 6.25);
  cost.record_full(10);
  cost.record_full(14);
  cost.record_full(11);
  cost.record_screening(3);
  EXPECT_DOUBLE_EQ(cost.full_s(), 14);
  EXPECT_DOUBLE_EQ(cost.screening_s(), 3);
  EXPECT_DOUBLE_EQ(cost.least_s(), 3);
}

TEST(CandidateCost, TheContractPassesAreGuessedAtTheFastestAndTheSlowestSizeSet) {
  EvalResult original;  // 1 ms and 100 ms calls, timed alone in 2 s after a 0.5 s start
  for (const double us : {100'000.0, 1'000.0}) {
    SizeTiming t;
    t.baseline.median_us = us;
    original.timings.push_back(t);
  }
  original.phase_s = {{"start", 0.5}, {"timing", 2.0}};
  // Both timed (4 s); each variant: 11 calls of both sizes (1.111 s), the ledger's, graph
  // capture's and the concurrent callers' 30 at the fastest (0.03 s), the slice's at the slowest
  // (0.1 s); a start.
  EXPECT_NEAR(first_full_evaluation_guess(original, 5), 4 + 2 * (1.111 + 0.03 + 0.1) + 0.5, 1e-9);
}

TEST(CandidateCost, AJobsWaitForTheGpuIsNotItsCost) {
  EvalResult job;
  job.run_s = 9.5;
  EXPECT_DOUBLE_EQ(gpu_wait_s(job), 0);
  EXPECT_DOUBLE_EQ(own_seconds(job), 9.5);
  job.phase_s = {{"start", 0.5}, {"timing", 1.0}, {"waiting for the GPU", 8.0}};
  EXPECT_DOUBLE_EQ(gpu_wait_s(job), 8.0);
  EXPECT_DOUBLE_EQ(own_seconds(job), 1.5);
  job.phase_s["waiting for the GPU"] = 12;  // never below nothing
  EXPECT_DOUBLE_EQ(own_seconds(job), 0);
}
