// A candidate's verdict, reason, speedup, median and compile time are read from its evaluation,
// and its JSON keeps a key for each, as result files always had.
#include <gtest/gtest.h>

#include "search/types/search_types.h"

namespace kb::search {
namespace {

CandidateRecord timed(Verdict verdict, double speedup) {
  CandidateRecord r;
  r.id = "r1-i0-b0";
  r.eval.verdict = verdict;
  r.eval.reason = "the reason";
  r.eval.speedup = speedup;
  r.eval.compile_s = 1.5;
  SizeTiming t;
  t.baseline.median_us = 20;
  t.candidate.median_us = 10;
  r.eval.timings = {t};
  return r;
}

TEST(CandidateRecord, ReadsItsOutcomeFromItsEvaluation) {
  const CandidateRecord r = timed(Verdict::accepted, 2.0);
  EXPECT_EQ(r.verdict(), Verdict::accepted);
  EXPECT_EQ(r.reason(), "the reason");
  EXPECT_EQ(r.speedup(), 2.0);
  EXPECT_EQ(r.median_us(), 10);
  EXPECT_EQ(r.compile_s(), 1.5);
  EXPECT_EQ(timed(Verdict::rejected, 2.0).speedup(), 0) << "only a correct candidate has a speedup";
  EXPECT_EQ(timed(Verdict::screened_out, 2.0).speedup(), 0);
  EXPECT_EQ(timed(Verdict::not_faster, 1.01).speedup(), 1.01);
  EXPECT_EQ(CandidateRecord{}.median_us(), 0) << "untimed";

  CandidateRecord archived = r;
  archived.from_archive = true;
  EXPECT_EQ(archived.compile_s(), 0) << "an earlier run compiled it";
}

TEST(CandidateRecord, TheOriginalIsOneTimesItselfAtItsOwnMedian) {
  CandidateRecord r = timed(Verdict::pending, 0);
  r.id = kBaselineId;
  r.eval.reason = "timed the original at 1 size sets";
  EXPECT_TRUE(r.is_original());
  EXPECT_EQ(r.speedup(), 1.0);
  EXPECT_EQ(r.median_us(), 20);
  EXPECT_EQ(r.reason(), "the original, measured on its own");
  EXPECT_EQ(r.compile_s(), 0) << "counted in the search's original_s";
}

TEST(CandidateRecord, JsonKeepsEveryKeyAndReadsBack) {
  const CandidateRecord r = timed(Verdict::not_faster, 1.02);
  const nlohmann::json j = r;
  for (const char* key :
       {"id", "parent_id", "round", "idea", "variant", "verdict", "reason", "speedup", "median_us", "eval",
        "from_archive", "variant_hash", "device_index", "compile_s", "compile_cached", "screening"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.size(), 16u);
  EXPECT_EQ(j["verdict"], "not_faster");
  EXPECT_EQ(j["reason"], "the reason");
  EXPECT_EQ(j["speedup"], 1.02);
  EXPECT_EQ(j["median_us"], 10.0);
  EXPECT_EQ(j["compile_s"], 1.5);
  const CandidateRecord back = j.get<CandidateRecord>();
  EXPECT_EQ(nlohmann::json(back), j);
}

// An older kernelbot kept a compile error's verdict and reason only beside the evaluation.
TEST(CandidateRecord, AnOlderResultsVerdictAndReasonAreTakenIntoItsEvaluation) {
  nlohmann::json j = CandidateRecord{};
  j["id"] = "r1-i0-b1";
  j["verdict"] = "compile_error";
  j["reason"] = "does not compile: error: expected ';'";
  const CandidateRecord r = j.get<CandidateRecord>();
  EXPECT_EQ(r.verdict(), Verdict::compile_error);
  EXPECT_EQ(r.eval.verdict, Verdict::compile_error);
  EXPECT_EQ(r.reason(), "does not compile: error: expected ';'");
}

}  // namespace
}  // namespace kb::search
