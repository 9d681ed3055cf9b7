// The archive: a real SQLite file in a temporary directory, and searches that reuse it.
#include "search/archive/archive.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "common/sha256.h"
#include "core/errors.h"
#include "search/archive/content_hash.h"
#include "search/archive/declined_changes.h"
#include "search/engine/search_engine.h"
#include "tests/search/scripted_proposer.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::idea;
using kb::testing::ScriptedProposer;
using kb::testing::SimulatedEvaluator;
using kb::testing::TestProject;
using kb::testing::timed_variant;

namespace {

CandidateRecord record(const std::string& id, Verdict verdict, double speedup, const std::string& tag) {
  CandidateRecord r;
  r.id = id;
  r.parent_id = "baseline";
  r.round = 1;
  r.idea = {"idea " + tag, "memory_access", "why " + tag};
  r.variant = timed_variant(100 / speedup, tag);
  r.variant_hash = variant_hash(r.variant);
  r.eval.verdict = verdict;
  r.eval.speedup = speedup;
  r.eval.timings.push_back(SizeTiming{});
  r.eval.timings[0].size_label = "n=1";
  r.eval.timings[0].candidate.median_us = 100 / speedup;
  return r;
}

ArchiveKey key(const std::string& gpu = "NVIDIA H100", const std::string& toolkit = "13.0",
               const std::string& source = "s1") {
  return ArchiveKey{"k", source, "spec1", gpu, toolkit};
}

}  // namespace

TEST(Archive, StoresAndReloadsCandidatesAcrossOpenings) {
  TestProject p;
  auto path = p.root / "deep" / "dir" / "archive.sqlite";
  auto a = record("r1-i0-b0", Verdict::accepted, 3.0, "a");
  {
    Archive archive(path);
    archive.store(key(), a, "--- a/k.cu\n+++ b/k.cu\n");
    archive.store(key(), record("r1-i0-b1", Verdict::wrong_result, 0, "b"), "");
    archive.store(key(), record("r1-i0-b2", Verdict::infra_error, 0, "c"), "");  // not the candidate's fault
    EXPECT_EQ(archive.count(key()), 2);
  }
  Archive reopened(path);
  EXPECT_EQ(reopened.count(key()), 2);
  auto found = reopened.find(key(), a.variant_hash);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->from_archive);
  EXPECT_EQ(found->id, "r1-i0-b0");
  EXPECT_EQ(found->verdict(), Verdict::accepted);
  EXPECT_DOUBLE_EQ(found->speedup(), 3.0);
  EXPECT_EQ(found->idea.rationale, "why a");
  EXPECT_EQ(found->variant.source, a.variant.source);
  EXPECT_EQ(found->eval.timings.at(0).size_label, "n=1");
  EXPECT_FALSE(reopened.find(key(), "no-such-hash").has_value());

  // A schema version table, WAL journaling.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT version FROM schema_version", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), Archive::kSchemaVersion);
  sqlite3_finalize(s);
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(Archive, RefusesAnArchiveFromANewerKernelbot) {
  TestProject p;
  auto path = p.root / "archive.sqlite";
  { Archive archive(path); }
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "INSERT INTO schema_version VALUES (99)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    Archive archive(path);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
}

// The candidates' connection and a side table's open the archive's file the same way
// (search/archive/archive_file.h), so a file SQLite cannot open fails both with the same words.
TEST(Archive, AFileThatCannotBeOpenedFailsTheArchiveAndItsSideTablesAlike) {
  TestProject p;
  const auto directory = p.root / "archive.sqlite";  // a directory where the file should be
  std::filesystem::create_directories(directory);
  const std::string expected = "archive: cannot open " + directory.string() + ": ";
  try {
    Archive archive(directory);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(expected)) << e.what();
  }
  try {
    DeclinedChanges declined(directory);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(expected)) << e.what();
  }
}

TEST(Archive, BestIsTheFastestAcceptedAndKeysSeparateGpusAndToolkits) {
  TestProject p;
  Archive archive(p.root / "a.sqlite");
  archive.store(key(), record("x", Verdict::accepted, 2.0, "x"), "");
  archive.store(key(), record("y", Verdict::accepted, 4.0, "y"), "");
  archive.store(key(), record("z", Verdict::not_faster, 9.0, "z"), "");  // correct, not a win
  archive.store(key("NVIDIA H200"), record("h200", Verdict::accepted, 8.0, "w"), "");
  archive.store(key("NVIDIA H100", "12.8"), record("old", Verdict::accepted, 7.0, "v"), "");
  EXPECT_EQ(archive.best(key())->id, "y");
  EXPECT_EQ(archive.best(key("NVIDIA H200"))->id, "h200");
  EXPECT_EQ(archive.best(key("NVIDIA H100", "12.8"))->id, "old");
  EXPECT_FALSE(archive.best(key("NVIDIA A100")).has_value());
  EXPECT_FALSE(archive.find(key("NVIDIA H200"), record("y", Verdict::accepted, 4.0, "y").variant_hash).has_value());
  // A new measurement of the same variant replaces the old one.
  auto remeasured = record("y", Verdict::accepted, 4.0, "y");
  remeasured.id = "y2";
  remeasured.eval.speedup = 4.5;
  archive.store(key(), remeasured, "");
  EXPECT_EQ(archive.best(key())->id, "y2");
  EXPECT_EQ(archive.count(key()), 3);
}

TEST(Archive, ExamplesAreOtherSearchesWinsSameGpuFirst) {
  TestProject p;
  Archive archive(p.root / "a.sqlite");
  archive.store(key(), record("mine", Verdict::accepted, 9.0, "m"), "diff-mine");
  archive.store(key("NVIDIA H100", "13.0", "other-kernel"), record("o1", Verdict::accepted, 2.0, "o1"), "diff-o1");
  archive.store(key("NVIDIA H100", "13.0", "other-kernel"), record("o2", Verdict::accepted, 3.0, "o2"), "diff-o2");
  archive.store(key("NVIDIA A100", "13.0", "third"), record("a1", Verdict::accepted, 5.0, "a1"), "diff-a1");
  archive.store(key("NVIDIA H100", "13.0", "fourth"), record("f", Verdict::wrong_result, 0, "f"), "diff-f");
  auto examples = archive.examples(key(), 5);
  ASSERT_EQ(examples.size(), 2u);
  EXPECT_EQ(examples[0].gpu, "NVIDIA H100");
  EXPECT_DOUBLE_EQ(examples[0].speedup, 3.0);
  EXPECT_EQ(examples[0].diff, "diff-o2");
  EXPECT_EQ(examples[0].idea.text, "idea o2");
  EXPECT_EQ(examples[1].gpu, "NVIDIA A100");
  EXPECT_EQ(archive.examples(key(), 1).size(), 1u);
}

TEST(Archive, ASecondSearchStartsFromTheBestAndSkipsWorkAlreadyDone) {
  TestProject p;
  p.config.search.rounds = 2;
  Archive archive(p.root / ".kernelbot" / "archive.sqlite");
  // The same script both times: round 1 offers 60 and 50 us, round 2 a 40 us variant.
  auto make = [] {
    return ScriptedProposer(
        [](const ProposalContext&) { return std::vector<ProposedIdea>{idea("a", "fusion")}; },
        [](const BranchRequest& r) {
          if (r.id_prefix == "r1-i0")
            return std::vector<Branch>{Branch{timed_variant(60, "sixty"), ""}, Branch{timed_variant(50, "fifty"), ""}};
          return std::vector<Branch>{Branch{timed_variant(40, "forty"), ""}};
        });
  };
  SimulatedEvaluator first_gpu;
  auto first_proposer = make();
  SearchRequest first_req{&p.config, &p.spec(), &first_gpu, {}, &first_proposer, &archive, {}};
  auto first = run_search(first_req);
  EXPECT_EQ(first.best_id, "r2-i0-b0");
  EXPECT_EQ(first.archive_path, (p.root / ".kernelbot" / "archive.sqlite").string());
  EXPECT_EQ(first.budget.candidates, 3);

  SimulatedEvaluator second_gpu;
  auto second_proposer = make();
  SearchRequest second_req{&p.config, &p.spec(), &second_gpu, {}, &second_proposer, &archive, {}};
  auto second = run_search(second_req);
  // The archive's best is in the tree from the start and a seed of round 1.
  const auto* start = second.find("archive");
  ASSERT_NE(start, nullptr);
  EXPECT_TRUE(start->from_archive);
  EXPECT_DOUBLE_EQ(start->speedup(), 100.0 / 40.0);
  ASSERT_FALSE(second_proposer.contexts.empty());
  EXPECT_EQ(second_proposer.contexts[0].seeds[0].id, "archive");
  // Round 1's variants are known: reused, not compiled or run again.
  EXPECT_TRUE(second.find("r1-i0-b0")->from_archive);
  EXPECT_TRUE(second.find("r1-i0-b1")->from_archive);
  EXPECT_EQ(second.find("r1-i0-b1")->verdict(), Verdict::accepted);
  EXPECT_EQ(second.budget.candidates, 0);
  EXPECT_EQ(second_gpu.evaluations(), 1);  // the original only
  EXPECT_EQ(second.archive_reused, 3);
  EXPECT_EQ(second.best_id, "archive");
  // Round 2's variant is the archive's best itself: already in this search, so dropped.
  EXPECT_EQ(second.find("r2-i0-b0"), nullptr);
}

TEST(Archive, KeyHashesTheSourceAndTheSpecButNotTheName) {
  TestProject p;
  DeviceInfo d;
  d.name = "NVIDIA H100";
  d.runtime_version = "13.0";
  auto k1 = make_archive_key(p.config, p.spec(), "source", d);
  EXPECT_EQ(k1.source_hash, sha256_hex("source"));
  auto renamed = p.spec();
  renamed.name = "other";
  renamed.tunables["X"] = {"1", "2"};
  EXPECT_EQ(make_archive_key(p.config, renamed, "source", d).spec_hash, k1.spec_hash);
  auto resized = p.spec();
  resized.sizes[0].values["n"] = 7;
  EXPECT_NE(make_archive_key(p.config, resized, "source", d).spec_hash, k1.spec_hash);
  auto looser = p.spec();
  looser.tolerance["float32"] = {1e-2, 1e-2};
  EXPECT_NE(make_archive_key(p.config, looser, "source", d).spec_hash, k1.spec_hash);
  EXPECT_NE(make_archive_key(p.config, p.spec(), "source2", d).source_hash, k1.source_hash);
}
