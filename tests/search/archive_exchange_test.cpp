// Archive export and merge: real SQLite files, exported to JSON and merged back the way
// `kernelbot publish` merges the shards' archives of a sweep.
#include "search/archive/archive_exchange.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "search/archive/content_hash.h"
#include "tests/search/scripted_proposer.h"
#include "tests/search/test_project.h"

using namespace kb;
using namespace kb::search;
using kb::testing::TestProject;
using kb::testing::timed_variant;

namespace {

CandidateRecord candidate(const std::string& tag, Verdict verdict, double speedup) {
  CandidateRecord r;
  r.id = "r1-i0-" + tag;
  r.parent_id = "baseline";
  r.round = 1;
  r.idea = {"idea " + tag, "memory_access", "why " + tag};
  const double us = speedup > 0 ? 100 / speedup : 500;  // a wrong result has no speedup
  r.variant = timed_variant(100, tag);  // the tag alone names the variant: one candidate, measured twice
  r.variant_hash = variant_hash(r.variant);
  r.eval.verdict = verdict;
  r.eval.speedup = speedup;
  r.eval.timings.push_back(SizeTiming{});
  r.eval.timings[0].candidate.median_us = us;
  return r;
}

ArchiveKey key_of(const std::string& kernel) {
  return ArchiveKey{kernel, "src-" + kernel, "spec", "NVIDIA H200", "13.0"};
}

ArchiveRow row(const std::string& kernel, const std::string& tag, Verdict verdict, double speedup,
               const std::string& when) {
  return ArchiveRow{key_of(kernel), candidate(tag, verdict, speedup), "diff " + tag, when};
}

// Every (kernel, variant) in the archive, with its speedup.
std::map<std::pair<std::string, std::string>, double> contents(const Archive& archive) {
  std::map<std::pair<std::string, std::string>, double> out;
  for (const auto& r : archive.rows()) {
    auto [it, inserted] = out.emplace(std::make_pair(r.key.kernel, r.record.variant_hash), r.record.speedup());
    EXPECT_TRUE(inserted) << "two rows for one candidate: " << r.key.kernel << " " << r.record.id;
  }
  return out;
}

}  // namespace

TEST(ArchiveExchange, ExportRoundTripsEveryField) {
  TestProject p;
  Archive a(p.root / "a.sqlite");
  auto stored = candidate("b0", Verdict::accepted, 2.5);
  stored.eval.timings.push_back(SizeTiming{});
  stored.eval.timings[0].size_label = "n=1";
  stored.eval.timings[0].baseline.median_us = 100;
  a.store(key_of("saxpy"), stored, "--- a/s.cu\n+++ b/s.cu\n");
  write_archive_export(p.root / "out" / "archive.json", a.rows());

  auto rows = read_archive_export(p.root / "out" / "archive.json");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.kernel, "saxpy");
  EXPECT_EQ(rows[0].key.source_hash, "src-saxpy");
  EXPECT_EQ(rows[0].key.gpu, "NVIDIA H200");
  EXPECT_EQ(rows[0].record.variant.source, stored.variant.source);
  EXPECT_EQ(rows[0].record.variant_hash, stored.variant_hash);
  EXPECT_DOUBLE_EQ(rows[0].record.speedup(), 2.5);
  EXPECT_EQ(rows[0].record.eval.timings.at(0).size_label, "n=1");
  EXPECT_EQ(rows[0].diff, "--- a/s.cu\n+++ b/s.cu\n");
  EXPECT_FALSE(rows[0].created_at.empty());

  Archive b(p.root / "b.sqlite");
  auto stats = merge_rows(b, rows);
  EXPECT_EQ(stats.changed, 1u);
  auto best = b.best(key_of("saxpy"));
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->variant_hash, stored.variant_hash);
  EXPECT_EQ(b.rows().at(0).created_at, rows[0].created_at);  // the measurement's date, not the merge's
}

TEST(ArchiveExchange, RowsAfterAWatermarkAreWhatARunAdded) {
  TestProject p;
  Archive a(p.root / "a.sqlite");
  a.store(key_of("saxpy"), candidate("old", Verdict::accepted, 1.5), "");
  const int64_t mark = a.last_row_id();
  a.store(key_of("saxpy"), candidate("new", Verdict::accepted, 1.7), "");
  a.store(key_of("row_sum"), candidate("new", Verdict::wrong_result, 0), "");
  auto added = a.rows("", mark);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].record.id, "r1-i0-new");
  auto saxpy_only = a.rows("saxpy", mark);
  ASSERT_EQ(saxpy_only.size(), 1u);
  EXPECT_EQ(saxpy_only[0].key.kernel, "saxpy");
  EXPECT_EQ(a.rows("saxpy").size(), 2u);
}

TEST(ArchiveExchange, OverlappingArchivesMergeToOneRowPerCandidateAndTheBestPerKernel) {
  TestProject p;
  // Two shards' archives that overlap: both hold last night's rows (x, y of saxpy), each
  // re-measured one of them, and each added candidates of its own.
  std::vector<ArchiveRow> shard0 = {
      row("saxpy", "x", Verdict::accepted, 1.40, "2026-11-20T01:00:00Z"),
      row("saxpy", "y", Verdict::accepted, 1.90, "2026-11-20T01:00:00Z"),
      row("saxpy", "z", Verdict::accepted, 2.30, "2026-11-21T01:00:00Z"),
      row("layernorm", "a", Verdict::accepted, 1.20, "2026-11-21T01:00:00Z"),
  };
  std::vector<ArchiveRow> shard1 = {
      row("saxpy", "x", Verdict::accepted, 1.40, "2026-11-20T01:00:00Z"),      // the same row
      row("saxpy", "y", Verdict::wrong_result, 0, "2026-11-21T02:00:00Z"),     // worse this time
      row("layernorm", "a", Verdict::accepted, 1.35, "2026-11-21T02:00:00Z"),  // better this time
      row("layernorm", "b", Verdict::accepted, 1.10, "2026-11-21T02:00:00Z"),
      row("transpose", "t", Verdict::not_faster, 0.8, "2026-11-21T02:00:00Z"),
  };
  write_archive_export(p.root / "s0.json", shard0);
  write_archive_export(p.root / "s1.json", shard1);

  Archive forward(p.root / "forward.sqlite");
  merge_rows(forward, read_archive_export(p.root / "s0.json"));
  auto stats = merge_rows(forward, read_archive_export(p.root / "s1.json"));
  EXPECT_EQ(stats.changed, 3u);  // layernorm a (better), layernorm b, transpose t
  EXPECT_EQ(stats.kept, 2u);     // saxpy x (same), saxpy y (worse)

  Archive backward(p.root / "backward.sqlite");
  merge_rows(backward, read_archive_export(p.root / "s1.json"));
  merge_rows(backward, read_archive_export(p.root / "s0.json"));

  auto merged = contents(forward);
  EXPECT_EQ(merged.size(), 6u);           // x, y, z, a, b, t: one row each
  EXPECT_EQ(merged, contents(backward));  // the order the shards arrive in does not matter
  EXPECT_DOUBLE_EQ(merged.at({"saxpy", candidate("y", Verdict::accepted, 0).variant_hash}), 1.90);
  EXPECT_DOUBLE_EQ(merged.at({"layernorm", candidate("a", Verdict::accepted, 0).variant_hash}), 1.35);

  for (Archive* a : {&forward, &backward}) {
    EXPECT_DOUBLE_EQ(a->best(key_of("saxpy"))->speedup(), 2.30);
    EXPECT_DOUBLE_EQ(a->best(key_of("layernorm"))->speedup(), 1.35);
    EXPECT_FALSE(a->best(key_of("transpose")).has_value());  // nothing accepted
  }
  // Merging the same export again changes nothing.
  EXPECT_EQ(merge_rows(forward, read_archive_export(p.root / "s0.json")).changed, 0u);
  EXPECT_EQ(forward.rows().size(), 6u);
}

TEST(ArchiveExchange, RefusesANewerVersionAndOtherFiles) {
  TestProject p;
  write_archive_export(p.root / "ok.json", {row("saxpy", "x", Verdict::accepted, 1.4, "2026-11-20T01:00:00Z")});
  std::ifstream in(p.root / "ok.json");
  auto j = nlohmann::json::parse(in);
  j["version"] = kArchiveExportVersion + 1;
  std::ofstream(p.root / "newer.json") << j.dump();
  std::ofstream(p.root / "other.json") << R"({"rows": []})";
  std::ofstream(p.root / "broken.json") << "{not json";
  try {
    read_archive_export(p.root / "newer.json");
    FAIL() << "a newer export was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("newer than this kernelbot"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_archive_export(p.root / "other.json"), std::runtime_error);
  EXPECT_THROW(read_archive_export(p.root / "broken.json"), std::runtime_error);
  EXPECT_THROW(read_archive_export(p.root / "missing.json"), std::runtime_error);
  EXPECT_EQ(read_archive_export(p.root / "ok.json").size(), 1u);
}
