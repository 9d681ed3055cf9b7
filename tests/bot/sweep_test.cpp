// Sweeps split over runners, on a CPU: the --shard parser, the plan, and whole shards searched
// with the simulated evaluator into shard directories, which must cover every kernel exactly once
// and agree on the plan (by count on the first night, by the archived GPU times on the next). A
// shard re-verifies each winner's PR text before saving it, and publishing (no GPU) publishes
// only what a shard re-verified.
#include <gtest/gtest.h>

#include <set>

#include "bot/change/result_store.h"
#include "bot/commands/publish/sweep_publish.h"
#include "bot/forge/dry_run_forge.h"
#include "bot/job/shard.h"
#include "bot/job/sweep_bundle.h"
#include "bot/job/sweep_shard.h"
#include "common/file_io.h"
#include "core/errors.h"
#include "search/archive/archive.h"
#include "search/archive/archive_exchange.h"
#include "search/engine/search_engine.h"
#include "tests/search/scripted_proposer.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

namespace fs = std::filesystem;
using namespace kb;
using namespace kb::bot;
using kb::testing::markers_cost;
using kb::testing::ScriptedProposer;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;

namespace {

// Five kernels whose originals take these simulated times.
const std::vector<std::pair<std::string, int>> kKernels = {
    {"k0", 100}, {"k1", 400}, {"k2", 50}, {"k3", 200}, {"k4", 100}};

// A kernel and its launcher; the simulated time is a marker in the kernel's body, so a winner
// spliced into the file (which replaces that body) takes the winner's time.
std::string kernel_source(const std::string& name, const std::string& body) {
  return "__global__ void " + name + "_kernel(float* y, int n) { " + body + " }\nvoid launch_" + name +
         "(float* y, int n) { " + name + "_kernel<<<1, 32>>>(y, n); }\n";
}

void add_kernels(TestProject& p) {
  const config::KernelSpec model = p.spec();
  p.config.kernels.clear();
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
  for (const auto& [name, us] : kKernels) {
    p.write(name + ".cu", kernel_source(name, "/* SIM_TIME=" + std::to_string(us) + " */"));
    config::KernelSpec spec = model;
    spec.name = name;
    spec.source = name + ".cu";
    spec.launcher = "launch_" + name;
    p.config.kernels.push_back(spec);
  }
}

// A search on the simulated GPU whose one branch takes 1 us.
search::SearchResult simulated_search(const config::Config& config, const config::KernelSpec& spec,
                                      const fs::path& archive_path) {
  SimulatedEvaluator evaluator;
  ScriptedProposer proposer(
      [](const search::ProposalContext&) {
        return std::vector<search::ProposedIdea>{kb::testing::idea("halve", "memory_access")};
      },
      [&](const search::BranchRequest& r) {
        return std::vector<search::Branch>{
            {Variant{kernel_source(spec.name, "/* " + r.id_prefix + " SIM_TIME=1 */"), {}, {}, "fast"}, ""}};
      });
  search::Archive archive(archive_path);
  search::SearchRequest request;
  request.config = &config;
  request.spec = &spec;
  request.evaluator = &evaluator;
  request.proposer = &proposer;
  request.archive = &archive;
  return search::run_search(request);
}

std::vector<const config::KernelSpec*> all_targets(const config::Config& config) {
  std::vector<const config::KernelSpec*> out;
  for (const auto& k : config.kernels) out.push_back(&k);
  return out;
}

// Runs every shard of an N-way sweep as a CI matrix does (each runner on its own copy of the
// archive restored from the last night), reads back the shard directories, and merges their
// archive rows into the persistent archive as `kernelbot publish` does.
std::vector<SweepBundle> sweep(const TestProject& p, int count, const std::string& night) {
  const fs::path persistent = p.root / "archive.sqlite";
  std::vector<SweepBundle> bundles;
  for (int i = 0; i < count; ++i) {
    Shard shard{i, count};
    const fs::path archive = p.root / night / ("runner-" + std::to_string(i) + ".sqlite");
    fs::create_directories(archive.parent_path());
    if (fs::exists(persistent)) fs::copy_file(persistent, archive);
    auto targets = shard_targets(all_targets(p.config), shard, archive);
    fs::path out = p.root / night / ("shard-" + std::to_string(i));
    SimulatedEvaluator reverifier;
    const std::string by = "kernelbot run --shard " + std::to_string(i) + "/" + std::to_string(count) + " --no-publish";
    auto rows = search_into_bundle(
        p.config, targets, shard, out, archive,
        [&](const config::KernelSpec& spec) { return simulated_search(p.config, spec, archive); }, reverifier, by);
    EXPECT_EQ(rows.size(), targets.mine.size());
    for (const auto& r : rows) EXPECT_FALSE(r.failed) << r.kernel << ": " << r.note;
    // Each winner's PR text was measured once, on this shard's GPU, before its result was saved.
    EXPECT_EQ(reverifier.evaluations(), static_cast<int>(targets.mine.size()));
    bundles.push_back(read_bundle(out));
    for (const auto& [kernel, result] : bundles.back().results) {
      EXPECT_TRUE(result.reverification.passed) << kernel << ": " << result.reverification.failure;
      EXPECT_EQ(result.reverification.by, by);
    }
  }
  search::Archive merged(persistent);
  for (const auto& b : bundles) search::merge_rows(merged, search::read_archive_export(bundle_archive_file(b.dir)));
  return bundles;
}

void expect_disjoint_and_complete(const std::vector<SweepBundle>& bundles) {
  std::multiset<std::string> searched;
  for (const auto& b : bundles) {
    EXPECT_EQ(b.manifest.plan.shards, bundles.front().manifest.plan.shards) << "shards planned differently";
    for (const auto& k : b.manifest.kernels) {
      searched.insert(k.kernel);
      EXPECT_TRUE(b.results.count(k.kernel)) << k.kernel << " has no result.json in shard " << b.manifest.shard.index;
      EXPECT_EQ(b.results.at(k.kernel).kernel, k.kernel);
    }
    // The archive rows a shard exports are its own kernels' rows only.
    for (const auto& row : search::read_archive_export(bundle_archive_file(b.dir))) {
      bool mine = false;
      for (const auto& k : b.manifest.kernels) mine |= k.kernel == row.key.kernel;
      EXPECT_TRUE(mine) << row.key.kernel << " exported by shard " << b.manifest.shard.index;
    }
  }
  std::multiset<std::string> expected;
  for (const auto& [name, us] : kKernels) expected.insert(name);
  EXPECT_EQ(searched, expected);  // each kernel exactly once
}

}  // namespace

TEST(Shard, ParsesIndexOverCount) {
  EXPECT_EQ(parse_shard("0/2").index, 0);
  EXPECT_EQ(parse_shard("1/2").index, 1);
  EXPECT_EQ(parse_shard("1/2").count, 2);
  EXPECT_EQ(parse_shard("0/1").count, 1);
  for (const char* bad : {"2/2", "1", "/2", "1/", "a/2", "-1/2", "0/0", "1/2/3", " 0/2", "0/1000000000"})
    EXPECT_THROW(parse_shard(bad), UsageError) << bad;
}

TEST(Shard, PlanBalancesByTimeAndFallsBackToCount) {
  const std::vector<std::string> names = {"a", "b", "c", "d", "e"};
  auto by_count = plan_shards(names, {}, 2);
  EXPECT_FALSE(by_count.by_time);
  EXPECT_EQ(by_count.shards, (std::vector<std::vector<std::string>>{{"a", "c", "e"}, {"b", "d"}}));

  auto by_time = plan_shards(names, {{"a", 100}, {"b", 400}, {"c", 50}, {"d", 200}, {"e", 100}}, 2);
  EXPECT_TRUE(by_time.by_time);
  // Longest first to the least loaded: b | d, a, e | then c to the tie's lower index.
  EXPECT_EQ(by_time.shards, (std::vector<std::vector<std::string>>{{"b", "c"}, {"a", "d", "e"}}));

  // A kernel never measured weighs the median of the others (the upper one of an even count:
  // 200 here), not zero: b | c, d | a to the tie's lower index | e.
  auto partial = plan_shards(names, {{"a", 100}, {"b", 400}, {"d", 200}, {"e", 100}}, 2);
  EXPECT_EQ(partial.shards, (std::vector<std::vector<std::string>>{{"a", "b"}, {"c", "d", "e"}}));

  auto more_shards_than_kernels = plan_shards({"a", "b"}, {}, 3);
  EXPECT_EQ(more_shards_than_kernels.shards, (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {}}));
  EXPECT_EQ(plan_shards(names, {{"b", 400}}, 2).shards, plan_shards(names, {{"b", 400}}, 2).shards);
}

TEST(Shard, ShardsOfASweepCoverEveryKernelOnceOnEveryNight) {
  for (int count : {1, 2, 3}) {
    TestProject p;
    add_kernels(p);
    auto first = sweep(p, count, "night1");
    expect_disjoint_and_complete(first);
    EXPECT_FALSE(first.front().manifest.plan.by_time);  // nothing measured yet: by count

    auto times = last_gpu_times_us(search::Archive(p.root / "archive.sqlite"));
    for (const auto& [name, us] : kKernels) EXPECT_DOUBLE_EQ(times.at(name), us) << name;
    auto second = sweep(p, count, "night2");
    expect_disjoint_and_complete(second);
    EXPECT_TRUE(second.front().manifest.plan.by_time);
    if (count == 2) {
      EXPECT_EQ(second.front().manifest.plan.shards,
                (std::vector<std::vector<std::string>>{{"k1", "k2"}, {"k0", "k3", "k4"}}));
    }
  }
}

TEST(Shard, AShardDirectoryFromANewerKernelbotOrElsewhereIsRefused) {
  TestProject p;
  EXPECT_THROW(read_bundle(p.root / "missing"), UsageError);
  EXPECT_THROW(read_bundle(p.root), Error);  // a directory without manifest.json
  BundleManifest m;
  m.version = kSweepBundleVersion + 1;
  m.plan.shards = {{"k"}};
  write_manifest(p.root / "newer", m);
  try {
    read_bundle(p.root / "newer");
    FAIL() << "read a newer shard directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this kernelbot"), std::string::npos) << e.what();
  }
}

namespace {

// One shard of one kernel, k0, whose winner the search found 100x faster; `reverifier` decides
// what the PR's text does when the shard re-verifies it.
SweepBundle one_kernel_shard(TestProject& p, Evaluator& reverifier, const std::string& name) {
  add_kernels(p);
  p.config.kernels.resize(1);
  const fs::path archive = p.root / (name + ".sqlite");
  auto targets = shard_targets(all_targets(p.config), Shard{0, 1}, archive);
  auto rows = search_into_bundle(
      p.config, targets, Shard{0, 1}, p.root / name, archive,
      [&](const config::KernelSpec& spec) { return simulated_search(p.config, spec, archive); }, reverifier,
      "kernelbot run --shard 0/1 --no-publish");
  EXPECT_EQ(rows.size(), 1u);
  return read_bundle(p.root / name);
}

}  // namespace

TEST(Shard, AWinnerWhosePrTextFailsReverificationIsSavedAsVetoedAndNotPublished) {
  TestProject p;
  // The PR's text computes the wrong result when the shard measures it again.
  SimulatedEvaluator reverifier([](const Variant& v) {
    auto b = markers_cost(v);
    b.wrong = b.time_us == 1;
    return b;
  });
  auto bundle = one_kernel_shard(p, reverifier, "shard");
  EXPECT_EQ(reverifier.evaluations(), 1);
  ASSERT_EQ(bundle.manifest.kernels.size(), 1u);
  EXPECT_EQ(bundle.manifest.kernels[0].status, "PR vetoed");
  EXPECT_FALSE(bundle.manifest.kernels[0].failed);
  EXPECT_NE(bundle.manifest.kernels[0].note.find("the PR's file failed re-verification: wrong_result"),
            std::string::npos)
      << bundle.manifest.kernels[0].note;
  const auto& result = bundle.results.at("k0");
  ASSERT_NE(result.best(), nullptr);  // the search's winner is kept
  EXPECT_TRUE(result.reverification.ran);
  EXPECT_FALSE(result.reverification.passed);

  kb::bot::DryRunForge forge(p.root, std::nullopt);
  auto rows = publish_sweep(p.config, {bundle}, {}, forge);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "PR vetoed") << rows[0].note;
  EXPECT_FALSE(rows[0].failed);
  EXPECT_FALSE(fs::exists(p.root / ".kernelbot/prs"));
}

TEST(Shard, PublishRefusesAWinnerTheShardDidNotReverify) {
  TestProject p;
  SimulatedEvaluator reverifier;
  auto bundle = one_kernel_shard(p, reverifier, "shard");
  ASSERT_TRUE(bundle.results.at("k0").reverification.passed);
  // The same directory as an older kernelbot (or a hand) would have written it: no record.
  auto stripped = bundle.results.at("k0");
  stripped.reverification = {};
  kb::bot::save_result_in(bundle_result_dir(bundle.dir, "k0"), stripped, nullptr);
  auto unverified = read_bundle(bundle.dir);

  kb::bot::DryRunForge forge(p.root, std::nullopt);
  auto rows = publish_sweep(p.config, {unverified}, {}, forge);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "refused");
  EXPECT_TRUE(rows[0].failed);
  EXPECT_NE(rows[0].note.find("carries no re-verification of the PR's text"), std::string::npos) << rows[0].note;
  EXPECT_FALSE(fs::exists(p.root / ".kernelbot/prs"));

  // The control: the record as the shard wrote it publishes (a dry-run PR), with no GPU here.
  rows = publish_sweep(p.config, {bundle}, {}, forge);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "dry-run PR") << rows[0].note;
  EXPECT_TRUE(fs::exists(p.root / ".kernelbot/prs/kernelbot-k0/PR.md"));
}

// A winner that changes only build flags has no PR text to re-verify: the shard saves it without a
// record, and publishing says why there is no PR instead of refusing it as unverified.
TEST(Shard, AWinnerThatChangesOnlyBuildFlagsIsNotReverifiedNorRefused) {
  TestProject p;
  add_kernels(p);
  p.config.kernels.resize(1);
  const auto& spec = p.config.kernels.front();
  SimulatedEvaluator gpu([](const Variant& v) {
    auto b = markers_cost(v);
    if (!v.nvcc_flags.empty()) b.time_us = 10;
    return b;
  });
  ScriptedProposer proposer(
      [](const search::ProposalContext&) {
        return std::vector<search::ProposedIdea>{kb::testing::idea("fast math", "compile_flags")};
      },
      [&](const search::BranchRequest&) {
        return std::vector<search::Branch>{
            {Variant{read_text_file(p.root / "k0.cu"), {}, {"--use_fast_math"}, "fast math"}, ""}};
      });
  SimulatedEvaluator reverifier;
  auto targets = shard_targets(all_targets(p.config), Shard{0, 1}, {});
  auto rows = search_into_bundle(
      p.config, targets, Shard{0, 1}, p.root / "shard", {},
      [&](const config::KernelSpec&) {
        search::SearchRequest request;
        request.config = &p.config;
        request.spec = &spec;
        request.evaluator = &gpu;
        request.proposer = &proposer;
        return search::run_search(request);
      },
      reverifier, "kernelbot run --shard 0/1 --no-publish");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].failed) << rows[0].note;
  EXPECT_EQ(reverifier.evaluations(), 0);
  auto bundle = read_bundle(p.root / "shard");
  ASSERT_NE(bundle.results.at("k0").best(), nullptr);
  EXPECT_FALSE(bundle.results.at("k0").reverification.ran);

  kb::bot::DryRunForge forge(p.root, std::nullopt);
  auto published = publish_sweep(p.config, {bundle}, {}, forge);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_FALSE(published[0].failed) << published[0].note;
  EXPECT_EQ(published[0].verdict, "no PR");
  EXPECT_NE(published[0].note.find("the winner changes only build flags"), std::string::npos) << published[0].note;
}
