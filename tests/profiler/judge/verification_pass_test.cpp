// The registry of verification passes (verification_pass.h): the order they run in, each pass's
// plan for a job, and docs/verdicts.md, which lists the passes in the registry's order.
#include "profiler/judge/plans/verification_pass.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace kb::judge {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

HarnessJob job_of(bool with_stream, bool float_input, bool generalization) {
  HarnessJob job;
  job.mode = JobMode::verify_and_time;
  job.kernel = "scale";
  job.baseline_library = "/tmp/base.so";
  job.candidate_library = "/tmp/cand.so";
  job.size_labels = {"n=1048576", "n=4096", "n=1000003"};
  const DType in = float_input ? DType::float32 : DType::int32;
  job.args = {{"x", ArgRole::input, in, {1048576, 4096, 1000003}, {}, "", 0, 0, "", {}},
              {"y", ArgRole::output, DType::float32, {1048576, 4096, 1000003}, {}, "", 1e-4, 1e-5, "", {}},
              {"n", ArgRole::size, DType::int32, {}, {"1048576", "4096", "1000003"}, "", 0, 0, "", {}}};
  if (generalization) {
    job.size_labels.push_back("n=7");
    job.args[0].counts.push_back(7);
    job.args[1].counts.push_back(7);
    job.args[2].values.push_back("7");
    job.verify_only_sizes = 1;
  }
  if (with_stream) job.args.push_back({"strm", ArgRole::stream, DType::float32, {}, {}, "", 0, 0, "", {}});
  job.seed = 7;
  return job;
}

std::vector<PassKey> keys() {
  std::vector<PassKey> k;
  for (const PassInfo& p : verification_passes()) k.push_back(p.key);
  return k;
}

TEST(VerificationPasses, RunInTheRegistrysOrderEachOnce) {
  // Conditions on the configured buffers first (they reuse the main trials' sets), then new sizes
  // and pointers, then the caller's program: its stream, a smaller GPU (first of the full
  // measurement's: the one with a watchdog, before passes a deadlocking kernel would hang), a
  // graph, concurrent callers, many calls.
  EXPECT_THAT(keys(), ElementsAre(PassKey::state_independence, PassKey::special_values, PassKey::generalization_sizes,
                                  PassKey::alignment, PassKey::per_thread_stream, PassKey::gpu_slice,
                                  PassKey::graph_capture, PassKey::concurrent_callers, PassKey::ledger));
  std::set<std::string_view> names;
  for (const PassInfo& p : verification_passes()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.proves.empty()) << p.name;
    EXPECT_EQ(&pass_info(p.key), &p);
  }
}

TEST(VerificationPasses, AStreamlessLauncherCannotBeCapturedOrGivenAnotherStream) {
  const DecodedJob job = decode_job(job_of(false, true, false));
  for (const PassKey k : {PassKey::graph_capture, PassKey::per_thread_stream}) {
    const PassPlan p = pass_info(k).plan(job);
    EXPECT_FALSE(p.runs) << pass_info(k).name;
    EXPECT_THAT(p.not_applicable, HasSubstr("no stream argument"));
  }
  // Concurrent callers, the ledger and the slice hold for every launcher (one without a stream
  // launches on the slice's default stream).
  EXPECT_TRUE(pass_info(PassKey::concurrent_callers).plan(job).runs);
  EXPECT_TRUE(pass_info(PassKey::ledger).plan(job).runs);
  EXPECT_TRUE(pass_info(PassKey::gpu_slice).plan(job).runs);
}

TEST(VerificationPasses, GraphAndLedgerCallAtTheSmallestSizeConcurrentCallersAtTheTwoSmallest) {
  const DecodedJob job = decode_job(job_of(true, true, false));
  EXPECT_THAT(pass_info(PassKey::graph_capture).plan(job).sizes, ElementsAre(1u));  // n=4096
  EXPECT_THAT(pass_info(PassKey::ledger).plan(job).sizes, ElementsAre(1u));
  // Different sizes at the least cost: n=4096 and n=1000003, not n=1048576.
  EXPECT_THAT(pass_info(PassKey::concurrent_callers).plan(job).sizes, ElementsAre(1u, 2u));
}

TEST(VerificationPasses, TheSliceCallsAtTheLargestSizeSetByBytes) {
  // n=1048576 is the largest; a grid that grows with n exceeds what a slice holds at once there.
  EXPECT_THAT(pass_info(PassKey::gpu_slice).plan(decode_job(job_of(true, true, false))).sizes, ElementsAre(0u));
  HarnessJob h = job_of(true, true, false);
  h.size_labels = {"n=4096", "n=1000003", "n=2000000"};
  for (auto& a : h.args) {
    if (!a.counts.empty()) a.counts = {4096, 1000003, 2000000};
    if (!a.values.empty()) a.values = {"4096", "1000003", "2000000"};
  }
  EXPECT_THAT(pass_info(PassKey::gpu_slice).plan(decode_job(h)).sizes, ElementsAre(2u));
}

TEST(VerificationPasses, AScreeningLeavesTheCallersContractToTheFullMeasurement) {
  HarnessJob h = job_of(true, true, false);
  EXPECT_FALSE(is_screening(decode_job(h)));
  h.timed_sizes = 1;
  EXPECT_TRUE(is_screening(decode_job(h)));
  std::vector<PassKey> full_only;
  for (const PassInfo& p : verification_passes())
    if (!p.in_screening) full_only.push_back(p.key);
  EXPECT_THAT(full_only,
              ElementsAre(PassKey::gpu_slice, PassKey::graph_capture, PassKey::concurrent_callers, PassKey::ledger));
}

TEST(VerificationPasses, OneSizeSetGivesTheConcurrentCallersTheSameSizeTwice) {
  HarnessJob h = job_of(true, true, false);
  h.size_labels = {"n=4096"};
  for (auto& a : h.args) {
    if (!a.counts.empty()) a.counts = {4096};
    if (!a.values.empty()) a.values = {"4096"};
  }
  EXPECT_THAT(pass_info(PassKey::concurrent_callers).plan(decode_job(h)).sizes, ElementsAre(0u, 0u));
}

TEST(VerificationPasses, SpecialValuesNeedAFloatInputGeneralizationNeedsItsSizes) {
  EXPECT_FALSE(pass_info(PassKey::special_values).plan(decode_job(job_of(true, false, false))).runs);
  EXPECT_TRUE(pass_info(PassKey::special_values).plan(decode_job(job_of(true, true, false))).runs);
  EXPECT_FALSE(pass_info(PassKey::generalization_sizes).plan(decode_job(job_of(true, true, false))).runs);
  EXPECT_TRUE(pass_info(PassKey::generalization_sizes).plan(decode_job(job_of(true, true, true))).runs);
}

TEST(VerificationPasses, DocsListThemInTheRegistrysOrder) {
  std::ifstream in(KB_SOURCE_DIR "/docs/verdicts.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t table = doc.find("## The passes after the main trials");
  ASSERT_NE(table, std::string::npos) << "docs/verdicts.md has no section listing the passes";
  size_t at = table;
  for (const PassInfo& p : verification_passes()) {
    const size_t found = doc.find("| " + std::string(p.name) + " |", at);
    ASSERT_NE(found, std::string::npos) << "docs/verdicts.md does not list '" << p.name << "' after the one before it";
    at = found;
  }
}

}  // namespace
}  // namespace kb::judge
